// A schedule's calendar against systemd's own reading of it: for each expression, the
// normalized form and the next three elapses from a fixed base time must be what
// `systemd-analyze calendar` prints (in UTC); what systemd refuses, or what a schedule does not
// take, is schedule.invalid_calendar.

#include "domain/schedule/CalendarSpec.h"
#include "domain/schedule/ScheduleUnits.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTest>

using namespace veetbot;

namespace {

const QDateTime kBase(QDate(2026, 12, 5), QTime(14, 40, 17), QTimeZone::utc()); // a Saturday

struct Systemd
{
    QString normalized;
    QList<QDateTime> elapses; // empty: never
};

// systemd-analyze calendar's reading, in UTC, from kBase.
std::optional<Systemd> systemdReads(const QString &expression)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TZ"), QStringLiteral("UTC"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral("systemd-analyze"),
                  {QStringLiteral("calendar"), QStringLiteral("--iterations=3"),
                   QStringLiteral("--base-time=@%1").arg(kBase.toSecsSinceEpoch()), expression});
    if (!process.waitForFinished(30000) || process.exitCode() != 0)
        return std::nullopt;
    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    Systemd read;
    static const QRegularExpression normalized(QStringLiteral("Normalized form: (.+)"));
    static const QRegularExpression elapse(QStringLiteral(
        "(?:Next elapse|Iter\\. #\\d+): \\w+ (\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d) UTC"));
    read.normalized = normalized.match(out).captured(1).trimmed();
    for (auto it = elapse.globalMatch(out); it.hasNext();)
        read.elapses << QDateTime::fromString(it.next().captured(1),
                                              QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                            .toTimeZone(QTimeZone::utc());
    for (QDateTime &at : read.elapses)
        at.setTimeZone(QTimeZone::utc());
    return read;
}

} // namespace

class TestCalendarSpec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void asSystemdReadsIt_data();
    void asSystemdReadsIt();
    void refused_data();
    void refused();
    void unitsQuoteTheProgramAsSystemdReadsIt();
    void aScheduleIsStorableOnlyWithinItsBounds();
};

void TestCalendarSpec::asSystemdReadsIt_data()
{
    QTest::addColumn<QString>("expression");
    for (const char *expression : {"Mon..Fri 08:00",
                                   "Mon,Tue,Wed 08:00",
                                   "Mon,Tue 8:00",
                                   "mon,wed,fri 7:30",
                                   "Saturday 12:00",
                                   "Sun,Mon 23:59:59",
                                   "Mon,Tue,Wed,Fri 8:00",
                                   "mon..wed,thu",
                                   "*-*-1 6:00",
                                   "*-*-1,2,3",
                                   "*-12-25 09:00",
                                   "2027-1-1",
                                   "2027,2026-1-1",
                                   "12-24 18:30",
                                   "12,18:00",
                                   "8,9,10:00",
                                   "8:0,30",
                                   "*:00",
                                   "*:15,45",
                                   "14:40:17",
                                   "14:40:18",
                                   "hourly",
                                   "daily",
                                   "weekly",
                                   "monthly",
                                   "yearly",
                                   "annually",
                                   "Fri *-*-13 13:13",
                                   "*-2-29 12:00",
                                   "*-2-30",
                                   "Sat 2027-*-* 00:00"}) {
        QTest::newRow(expression) << QString::fromLatin1(expression);
    }
}

void TestCalendarSpec::asSystemdReadsIt()
{
    QFETCH(QString, expression);
    const Result<CalendarSpec> spec = CalendarSpec::parse(expression);
    QVERIFY2(spec.ok(), qPrintable(expression));
    const std::optional<Systemd> systemd = systemdReads(expression);
    QVERIFY2(systemd, "systemd-analyze did not read it");
    QCOMPARE(spec->normalized(), systemd->normalized);
    // Elapses read from systemd's words (three, fewer for a year that ends), but for a date
    // that never comes.
    QCOMPARE(systemd->elapses.isEmpty(), expression == QLatin1String("*-2-30"));
    // The normalized form reads back the same.
    QCOMPARE(CalendarSpec::parse(spec->normalized())->normalized(), spec->normalized());
    QList<QDateTime> ours;
    QDateTime after = kBase;
    for (int i = 0; i < 3; ++i) {
        const std::optional<QDateTime> next = spec->next(after, QTimeZone::utc());
        if (!next)
            break;
        ours << *next;
        after = *next;
    }
    QCOMPARE(ours, systemd->elapses);
}

void TestCalendarSpec::refused_data()
{
    QTest::addColumn<QString>("expression");
    QTest::addColumn<bool>("systemdTakesIt");
    // What systemd refuses too.
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("a range that wraps") << QStringLiteral("Sat..Mon") << false;
    QTest::newRow("no such day") << QStringLiteral("Funday 08:00") << false;
    QTest::newRow("hour 24") << QStringLiteral("24:00") << false;
    QTest::newRow("month 13") << QStringLiteral("*-13-01") << false;
    QTest::newRow("two times") << QStringLiteral("08:00 09:00") << false;
    QTest::newRow("words after") << QStringLiteral("08:00 rm -rf") << false;
    // What systemd takes and a schedule does not.
    QTest::newRow("repetition") << QStringLiteral("*:0/15") << true;
    QTest::newRow("every minute") << QStringLiteral("*:*") << true;
    QTest::newRow("every second") << QStringLiteral("08:00:*") << true;
    QTest::newRow("a time range") << QStringLiteral("8..17:00") << true;
    QTest::newRow("a date range") << QStringLiteral("*-*-1..7 08:00") << true;
    QTest::newRow("the last day") << QStringLiteral("*-*~01 08:00") << true;
    QTest::newRow("a time zone") << QStringLiteral("08:00 Europe/Berlin") << true;
    QTest::newRow("minutely") << QStringLiteral("minutely") << true;
    QTest::newRow("too long") << QStringLiteral("Mon,Tue,Wed,Thu,Fri,Sat,Sun *-*-* "
                                                "00,01,02,03,04,05,06,07,08,09,10,11:00")
                              << true;
    QTest::newRow("not ASCII") << QStringLiteral("Mon 08\u200B:00") << false;
}

void TestCalendarSpec::refused()
{
    QFETCH(QString, expression);
    QFETCH(bool, systemdTakesIt);
    const Result<CalendarSpec> spec = CalendarSpec::parse(expression);
    QVERIFY(!spec.ok());
    QCOMPARE(spec.error(), CalendarSpec::invalid());
    if (!expression.isEmpty())
        QCOMPARE(systemdReads(expression).has_value(), systemdTakesIt);
}

// The units' ExecStart= quoting (systemd.service(5), "Command lines"): double quotes, escaped
// backslashes and quotes, "%" and "$" doubled; the timer's calendar and catch-up; a oneshot
// service whose limit is a little past the occurrence's own deadline.
void TestCalendarSpec::unitsQuoteTheProgramAsSystemdReadsIt()
{
    QCOMPARE(ScheduleUnits::execWord(QStringLiteral("/usr/bin/veetbot")),
             QStringLiteral("\"/usr/bin/veetbot\""));
    QCOMPARE(ScheduleUnits::execWord(QStringLiteral("/opt/a b/100%/$HOME/\"q\"\\x")),
             QStringLiteral("\"/opt/a b/100%%/$$HOME/\\\"q\\\"\\\\x\""));
    Schedule schedule;
    schedule.id = QUuid::fromString(QStringLiteral("12345678-1234-1234-1234-123456789abc"));
    schedule.calendar = QStringLiteral("Mon..Fri *-*-* 08:00:00");
    schedule.deadlineMinutes = 30;
    const QString timer = ScheduleUnits::timer(schedule);
    QVERIFY(timer.contains(QStringLiteral("\nOnCalendar=Mon..Fri *-*-* 08:00:00\n")));
    QVERIFY(timer.contains(QStringLiteral("\nPersistent=true\n")));
    QVERIFY(timer.contains(
        QStringLiteral("\nUnit=veetbot-schedule-12345678-1234-1234-1234-123456789abc.service\n")));
    QVERIFY(timer.contains(QStringLiteral("\nWantedBy=timers.target\n")));
    const QString service = ScheduleUnits::service(schedule, QStringLiteral("/usr/bin/veetbot"));
    QVERIFY(service.contains(QStringLiteral("\nType=oneshot\n")));
    QVERIFY(service.contains(QStringLiteral("\nExecStart=\"/usr/bin/veetbot\" schedules occur "
                                            "12345678-1234-1234-1234-123456789abc\n")));
    QVERIFY(service.contains(QStringLiteral("\nTimeoutStartSec=35min\n")));
}

void TestCalendarSpec::aScheduleIsStorableOnlyWithinItsBounds()
{
    Schedule schedule;
    schedule.id = QUuid::createUuid();
    schedule.profileId = QUuid::createUuid();
    schedule.profileGeneration = 1;
    schedule.task = QStringLiteral("Check my orders.");
    schedule.calendar = QStringLiteral("*-*-* 00:00:00");
    schedule.modelUrl = QStringLiteral("https://models.example/v1/chat/completions");
    schedule.model = QStringLiteral("m");
    schedule.budget = 16384;
    schedule.agentVersion = QStringLiteral("veetbot 1");
    schedule.policyVersion = QString(64, u'0');
    QVERIFY(isStorable(schedule));
    const auto without = [&schedule](const std::function<void(Schedule &)> &change) {
        Schedule changed = schedule;
        change(changed);
        return isStorable(changed);
    };
    QVERIFY(!without([](Schedule &s) { s.calendar = QStringLiteral("daily"); })); // unnormalized
    QVERIFY(!without([](Schedule &s) { s.task = QStringLiteral("   "); }));
    QVERIFY(!without([](Schedule &s) { s.profileGeneration = 0; }));
    QVERIFY(!without([](Schedule &s) { s.budget = 1023; }));
    QVERIFY(!without([](Schedule &s) { s.deadlineMinutes = 0; }));
    QVERIFY(!without([](Schedule &s) { s.deadlineMinutes = Schedule::kMaxDeadlineMinutes + 1; }));
    QVERIFY(!without([](Schedule &s) { s.policyVersion = QString(64, u'A'); }));
    QVERIFY(!without([](Schedule &s) { s.standingGrant = QUuid(); }));
    QVERIFY(without([](Schedule &s) { s.standingGrant = QUuid::createUuid(); }));
}

QTEST_GUILESS_MAIN(TestCalendarSpec)
#include "tst_calendarspec.moc"
