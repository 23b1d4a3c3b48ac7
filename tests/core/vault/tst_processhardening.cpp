// The core-dump policy a program that holds keys applies first thing in main().

#include "vault/ProcessHardening.h"

#include <QTest>

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace veetbot;

class TestProcessHardening : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void disableCoreDumpsInAChild();
};

void TestProcessHardening::disableCoreDumpsInAChild()
{
    // In a child: the test process itself stays as it was. The child first allows core files
    // up to its hard limit, so the check below sees the call's effect, not the inherited 0.
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        struct rlimit limit;
        if (getrlimit(RLIMIT_CORE, &limit) != 0)
            _exit(10);
        limit.rlim_cur = limit.rlim_max;
        if (limit.rlim_max == 0 || setrlimit(RLIMIT_CORE, &limit) != 0 ||
            prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 1)
            _exit(11);
        if (!ProcessHardening::disableCoreDumps())
            _exit(1);
        if (getrlimit(RLIMIT_CORE, &limit) != 0 || limit.rlim_cur != 0 || limit.rlim_max != 0)
            _exit(2);
        if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
            _exit(3);
        _exit(0);
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    if (WEXITSTATUS(status) >= 10)
        QSKIP("core files are forbidden by the hard limit here; nothing to disable");
    QCOMPARE(WEXITSTATUS(status), 0);
    QCOMPARE(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
}

QTEST_GUILESS_MAIN(TestProcessHardening)
#include "tst_processhardening.moc"
