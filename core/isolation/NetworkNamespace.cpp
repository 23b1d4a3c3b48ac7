#include "NetworkNamespace.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace veetbot::NetworkNamespace {

ChildSetup prepare()
{
    ChildSetup setup;
    setup.privileged = ::geteuid() == 0;
    std::snprintf(setup.uidMap, sizeof setup.uidMap, "0 %u 1\n", unsigned(::geteuid()));
    std::snprintf(setup.gidMap, sizeof setup.gidMap, "0 %u 1\n", unsigned(::getegid()));
    return setup;
}

namespace {
bool writeFile(const char *path, const char *text) noexcept
{
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const size_t length = std::strlen(text);
    const bool ok = ::write(fd, text, length) == ssize_t(length);
    ::close(fd);
    return ok;
}
} // namespace

void enterInChild(const ChildSetup &setup) noexcept
{
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct rlimit noCore = {0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);
    if (setup.privileged) {
        if (::unshare(CLONE_NEWNET) != 0)
            ::_exit(126);
        return;
    }
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
        ::_exit(126);
    // A parent that holds keys (the profile service) is not dumpable, and neither is this
    // fork of it: its /proc/self files then belong to root and it may not write its own maps.
    // Dumpable again, with no core file allowed (above), until the exec that follows.
    ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    if (!writeFile("/proc/self/setgroups", "deny") ||
        !writeFile("/proc/self/uid_map", setup.uidMap) ||
        !writeFile("/proc/self/gid_map", setup.gidMap))
        ::_exit(126);
}

bool bringUpLoopback()
{
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    struct ifreq request;
    std::memset(&request, 0, sizeof request);
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    bool ok = ::ioctl(fd, SIOCGIFFLAGS, &request) == 0;
    if (ok && !(request.ifr_flags & IFF_UP)) {
        request.ifr_flags |= IFF_UP | IFF_RUNNING;
        ok = ::ioctl(fd, SIOCSIFFLAGS, &request) == 0;
    }
    ::close(fd);
    return ok;
}

bool isIsolated()
{
    struct if_nameindex *interfaces = ::if_nameindex();
    if (!interfaces)
        return false;
    bool onlyLoopback = true;
    for (struct if_nameindex *i = interfaces; i->if_index != 0 || i->if_name != nullptr; ++i) {
        if (std::strcmp(i->if_name, "lo") != 0)
            onlyLoopback = false;
    }
    ::if_freenameindex(interfaces);
    return onlyLoopback;
}

} // namespace veetbot::NetworkNamespace
