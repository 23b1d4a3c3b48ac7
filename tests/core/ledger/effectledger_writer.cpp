// effectledger-writer: one agent process writing to a shared effect ledger, for
// tst_effectledger. Lines on stdout say what it did; a failure is "failed <code>" on stderr
// and exit status 1.
//
//   effectledger-writer record <ledger> <count>
//       opens the ledger, prints "ready <instance>", waits for a line on stdin, then records
//       <count> dispatches (prepared, authorized, dispatch_started, dispatched) as fast as it
//       can, printing each call's id; "done" at the end.
//   effectledger-writer hold <ledger> <authorized|dispatch_started>
//       opens the ledger, takes one call to that state, prints "started <id> <instance>" and
//       waits for a line on stdin: "finish" ends the call (not_sent or dispatched) and prints
//       "finished".
//   effectledger-writer legacy-lock <ledger>
//       holds the lock file of the earlier single-process ledger, as a process of that version
//       did while it ran, prints "locked" and waits for stdin to end.

#include "domain/Sha256.h"
#include "ledger/EffectLedger.h"

#include <QCoreApplication>
#include <QLockFile>

#include <cstdio>
#include <optional>

using namespace veetbot;

namespace {

QString idText(const QUuid &id)
{
    return id.toString(QUuid::WithoutBraces);
}

void say(const QString &line)
{
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
}

int fail(const QString &code)
{
    std::fprintf(stderr, "failed %s\n", qPrintable(code));
    return 1;
}

// One line of stdin without its white space; nothing at its end.
std::optional<QByteArray> readLine()
{
    char buffer[256];
    if (std::fgets(buffer, sizeof buffer, stdin) == nullptr)
        return std::nullopt;
    return QByteArray(buffer).trimmed();
}

EffectCall callNumber(const QUuid &instance, int number)
{
    return EffectCall{QStringLiteral("browser.act"),
                      QStringLiteral("1.7.0"),
                      QStringLiteral("click"),
                      QStringLiteral("https://shop.example"),
                      Sha256::digest((idText(instance) + u'/' + QString::number(number)).toUtf8()),
                      Sha256::digest(QByteArrayLiteral("revision"))};
}

int record(const QString &path, int count)
{
    auto opened = EffectLedger::open(path);
    if (!opened)
        return fail(opened.error().code);
    EffectLedger &ledger = *opened.value();
    say(QStringLiteral("ready ") + idText(ledger.instanceId()));
    static_cast<void>(readLine());
    for (int number = 0; number < count; ++number) {
        const Result<QUuid> id = ledger.prepare(callNumber(ledger.instanceId(), number));
        if (!id)
            return fail(id.error().code);
        if (const Result<Unit> done = ledger.authorize(*id, EffectAuthority::OwnerApproval); !done)
            return fail(done.error().code);
        for (const auto &step : {&EffectLedger::beginDispatch, &EffectLedger::markDispatched}) {
            if (const Result<Unit> done = (ledger.*step)(*id); !done)
                return fail(done.error().code);
        }
        say(idText(*id));
    }
    say(QStringLiteral("done"));
    return 0;
}

int hold(const QString &path, const QString &state)
{
    const bool dispatch = state == QLatin1String("dispatch_started");
    if (!dispatch && state != QLatin1String("authorized"))
        return fail(QStringLiteral("usage"));
    auto opened = EffectLedger::open(path);
    if (!opened)
        return fail(opened.error().code);
    EffectLedger &ledger = *opened.value();
    const Result<QUuid> id = ledger.prepare(callNumber(ledger.instanceId(), 0));
    if (!id)
        return fail(id.error().code);
    if (const Result<Unit> done = ledger.authorize(*id, EffectAuthority::OwnerApproval); !done)
        return fail(done.error().code);
    if (dispatch) {
        if (const Result<Unit> done = ledger.beginDispatch(*id); !done)
            return fail(done.error().code);
    }
    say(QStringLiteral("started ") + idText(*id) + u' ' + idText(ledger.instanceId()));
    if (readLine() != QByteArray("finish"))
        return 0;
    const Result<Unit> finished = dispatch
                                      ? ledger.markDispatched(*id)
                                      : ledger.markNotSent(*id, QStringLiteral("tool.cancelled"));
    if (!finished)
        return fail(finished.error().code);
    say(QStringLiteral("finished"));
    return 0;
}

int legacyLock(const QString &path)
{
    QLockFile lock(path + QStringLiteral(".lock"));
    lock.setStaleLockTime(0);
    if (!lock.tryLock(0))
        return fail(QStringLiteral("locked_elsewhere"));
    say(QStringLiteral("locked"));
    while (readLine()) {
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments().mid(1);
    if (args.size() == 3 && args.at(0) == QLatin1String("record")) {
        bool ok = false;
        const int count = args.at(2).toInt(&ok);
        return ok && count > 0 ? record(args.at(1), count) : fail(QStringLiteral("usage"));
    }
    if (args.size() == 3 && args.at(0) == QLatin1String("hold"))
        return hold(args.at(1), args.at(2));
    if (args.size() == 2 && args.at(0) == QLatin1String("legacy-lock"))
        return legacyLock(args.at(1));
    return fail(QStringLiteral("usage"));
}
