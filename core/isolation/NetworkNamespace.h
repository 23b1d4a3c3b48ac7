#pragma once

namespace veetbot {

// The OS boundary beneath the browser: the browser-owning process runs in its own network
// namespace whose only way out is a forwarder to the egress proxy outside it. Loopback,
// private ranges, UDP (WebRTC, QUIC) and the browser's own DNS then have nowhere to go.
// As root a plain network namespace is used; otherwise an unprivileged user namespace owns it.
namespace NetworkNamespace {

// Prepared in the parent before the fork (allocates; not for the child).
struct ChildSetup
{
    bool privileged = false;
    char uidMap[48] = {};
    char gidMap[48] = {};
};
ChildSetup prepare();

// Runs in the forked child before exec; async-signal-safe. Enters a new network namespace
// (and user namespace when not privileged), asks for SIGKILL when the parent dies, and
// disables core dumps. On any failure the child exits with status 126: the browser never
// starts outside the namespace.
void enterInChild(const ChildSetup &setup) noexcept;

// In the browser host: brings the namespace's loopback interface up.
bool bringUpLoopback();
// True when the process sees no network interface other than loopback.
bool isIsolated();

} // namespace NetworkNamespace
} // namespace veetbot
