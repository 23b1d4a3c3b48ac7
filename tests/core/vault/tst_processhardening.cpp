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
    // (unlimited where it may raise the hard limit, else up to it), so the check below sees
    // the call's effect, not an inherited 0.
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        struct rlimit limit = {RLIM_INFINITY, RLIM_INFINITY};
        if (setrlimit(RLIMIT_CORE, &limit) != 0) {
            if (getrlimit(RLIMIT_CORE, &limit) != 0)
                _exit(11);
            limit.rlim_cur = limit.rlim_max;
            if (setrlimit(RLIMIT_CORE, &limit) != 0)
                _exit(11);
        }
        if (limit.rlim_cur == 0)
            _exit(10);
        if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 1)
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
    // A machine where no core file may be written cannot show the call's effect: a failure,
    // never a skip.
    QVERIFY2(WEXITSTATUS(status) != 10,
             "core files are forbidden by a hard limit this process may not raise");
    QVERIFY2(WEXITSTATUS(status) != 11, "the child could not set up its core-file limit");
    QCOMPARE(WEXITSTATUS(status), 0);
    QCOMPARE(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
}

QTEST_GUILESS_MAIN(TestProcessHardening)
#include "tst_processhardening.moc"
