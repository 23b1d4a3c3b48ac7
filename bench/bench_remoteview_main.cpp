// The remote sign-in view's latency benchmark (docs/benchmark.md#the-remote-sign-in-view): how
// long a key the owner types takes to come back as a frame of the page showing it, on loopback.
// Two sides in one run, each typing the same characters into the same page:
//  - the view: the workbench's RemoteViewChannel, through the profile service's capability
//    routes, its isolated browser host and the host's Chromium (what the owner's window uses);
//  - the peer: the same Chromium placement driven in this process (ChromiumProvider's
//    ownerInput and ownerViewFrame), the browser's own floor.
// It prints p50 and p95 of each and their ratio, and writes bench/results/remoteview-latest.json.
// The page hides its caret, so only the typed character changes a frame.

#include "BrowserEnvironment.h"
#include "EngineUnderTest.h"
#include "EventWait.h"
#include "ServiceTestCase.h"
#include "client/RemoteViewChannel.h"
#include "client/WebsiteAccess.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <algorithm>
#include <thread>

using namespace veetbot;
using namespace veetbot::testing;

namespace {

const QByteArray kPage =
    "<!doctype html><title>Type</title><style>body{margin:0}"
    "input{position:absolute;left:40px;top:100px;width:600px;height:40px;font:24px monospace;"
    "caret-color:transparent}</style><input id=field aria-label=Field>";
const QPointF kField(340, 120);

OwnerInput click(OwnerInput::Kind kind)
{
    OwnerInput input;
    input.kind = kind;
    input.point = kField;
    input.button = OwnerInput::Button::Left;
    return input;
}

OwnerInput typed(int i)
{
    OwnerInput input;
    input.kind = OwnerInput::Kind::Text;
    input.text = QString(QChar(u'a' + i % 26));
    return input;
}

double percentile(QList<double> values, double p)
{
    if (values.isEmpty())
        return -1;
    std::sort(values.begin(), values.end());
    const qsizetype index =
        std::clamp<qsizetype>(qsizetype(p * double(values.size() - 1) + 0.5), 0, values.size() - 1);
    return values.at(index);
}

class RemoteViewBench : public ServiceTestCase
{
public:
    int iterations = 60;
    QList<double> viewMs;
    QList<double> peerMs;
    QString failure;

    bool run()
    {
        QString error;
        if (!m_harness.start(&error))
            return fail(QStringLiteral("fixture site: ") + error);
        m_harness.page(QStringLiteral("/type"), kPage);
        return peer() && view();
    }

private:
    bool fail(const QString &why)
    {
        failure = why;
        return false;
    }

    // Types one character at a time, each after the frames of the last have stopped, and
    // measures until the first frame after it.
    template <typename Send> bool measure(Send send, int &frames, QList<double> &into)
    {
        for (int i = 0; i < iterations; ++i) {
            // Quiet first: no frame for 150 ms.
            int seen = frames;
            QElapsedTimer quiet;
            quiet.start();
            while (quiet.elapsed() < 150) {
                runEventsUntil([] { return false; }, 10);
                if (frames != seen) {
                    seen = frames;
                    quiet.restart();
                }
            }
            QElapsedTimer took;
            took.start();
            send(typed(i));
            if (!runEventsUntil([&frames, seen] { return frames > seen; }, 5000))
                return fail(QStringLiteral("no frame after a key"));
            into.append(double(took.nsecsElapsed()) / 1e6);
        }
        return true;
    }

    bool peer()
    {
        EngineUnderTest engine;
        QString error;
        qputenv("VEETBOT_TEST_ENGINE", "chromium");
        if (!m_harness.routeThroughEgressProxy() || !engine.start(m_harness, &error))
            return fail(QStringLiteral("chromium: ") + error);
        std::unique_ptr<BrowserProvider> browser = engine.makeProvider(
            m_harness.policy({QStringLiteral("shop.test")}), m_harness.overrides());
        engine.admitFor(browser.get());
        if (!BrowserTestHarness::navigate(
                 *browser, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/type")))
                 .ok())
            return fail(QStringLiteral("peer navigation"));
        int frames = 0;
        QObject::connect(browser.get(), &BrowserProvider::ownerViewFrame, browser.get(),
                         [&frames](const OwnerViewFrame &) { ++frames; });
        if (!browser->startOwnerView(QSize(1280, 800)) ||
            !runEventsUntil([&frames] { return frames > 0; }, 10000))
            return fail(QStringLiteral("peer frames"));
        browser->ownerInput(click(OwnerInput::Kind::MouseDown));
        browser->ownerInput(click(OwnerInput::Kind::MouseUp));
        const bool measured = measure(
            [&browser](const OwnerInput &input) { browser->ownerInput(input); }, frames, peerMs);
        browser->stopOwnerView();
        engine.admitFor(nullptr);
        return measured;
    }

    bool view()
    {
        if (!setUpService())
            return fail(QStringLiteral("profile service"));
        const QString id = createProfile(false);
        if (id.isEmpty())
            return fail(QStringLiteral("profile"));
        useServiceEnvironmentHere();
        // Begun on a worker: the fixture site answers on this thread.
        std::optional<Result<RemoteSignIn>> begun;
        std::thread worker([&begun, id, this] {
            begun = beginRemoteSignIn(QUuid(id), QUrl(url(QStringLiteral("/type"))));
        });
        const bool answered = runEventsUntil([&begun] { return begun.has_value(); }, 90000);
        worker.join();
        if (!answered || !*begun)
            return fail(QStringLiteral("remote begin"));
        RemoteViewChannel channel((*begun)->socketPath, (*begun)->ceremony.id,
                                  (*begun)->launchPath);
        int frames = 0;
        QObject::connect(&channel, &RemoteViewChannel::frameArrived, &channel,
                         [&frames](const OwnerViewFrame &) { ++frames; });
        channel.setShowing(true, QSize(1280, 800));
        if (!runEventsUntil([&frames] { return frames > 0; }, 20000))
            return fail(QStringLiteral("view frames"));
        channel.send(click(OwnerInput::Kind::MouseDown));
        channel.send(click(OwnerInput::Kind::MouseUp));
        const bool measured =
            measure([&channel](const OwnerInput &input) { channel.send(input); }, frames, viewMs);
        channel.setShowing(false, QSize(1280, 800));
        (void)cancelSignIn((*begun)->ceremony.id);
        tearDownService();
        return measured;
    }
};

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    BrowserEnvironment::configureProcess();
    QApplication app(argc, argv);
    RemoteViewBench bench;
    if (const QByteArray n = qgetenv("VEETBOT_BENCH_ITERATIONS"); !n.isEmpty())
        bench.iterations = std::max(5, n.toInt());
    QTextStream out(stdout);
    if (!bench.run()) {
        QTextStream(stderr) << "bench-remoteview: " << bench.failure << '\n';
        return 1;
    }
    const double viewP50 = percentile(bench.viewMs, 0.5);
    const double viewP95 = percentile(bench.viewMs, 0.95);
    const double peerP50 = percentile(bench.peerMs, 0.5);
    const double peerP95 = percentile(bench.peerMs, 0.95);
    out << "| key to frame, loopback | the view (service, host, Chromium) | Chromium in process "
           "(peer) | ratio |\n| --- | --- | --- | --- |\n";
    out << QStringLiteral("| p50 | %1 ms | %2 ms | %3 |\n")
               .arg(viewP50, 0, 'f', 1)
               .arg(peerP50, 0, 'f', 1)
               .arg(viewP50 / peerP50, 0, 'f', 2);
    out << QStringLiteral("| p95 | %1 ms | %2 ms | %3 |\n")
               .arg(viewP95, 0, 'f', 1)
               .arg(peerP95, 0, 'f', 1)
               .arg(viewP95 / peerP95, 0, 'f', 2);
    out << QStringLiteral("%1 keys each; target: the view's p95 under 150 ms\n")
               .arg(bench.iterations);
    QJsonArray view;
    QJsonArray peer;
    for (double ms : std::as_const(bench.viewMs))
        view.append(ms);
    for (double ms : std::as_const(bench.peerMs))
        peer.append(ms);
    double load[3] = {0, 0, 0};
    if (getloadavg(load, 3) < 1)
        load[0] = -1;
    const QJsonObject results{
        {QStringLiteral("iterations"), bench.iterations},
        {QStringLiteral("load_average_1m_after"), load[0]},
        {QStringLiteral("view"), QJsonObject{{QStringLiteral("p50_ms"), viewP50},
                                             {QStringLiteral("p95_ms"), viewP95},
                                             {QStringLiteral("samples_ms"), view}}},
        {QStringLiteral("peer"), QJsonObject{{QStringLiteral("p50_ms"), peerP50},
                                             {QStringLiteral("p95_ms"), peerP95},
                                             {QStringLiteral("samples_ms"), peer}}},
        {QStringLiteral("ratio_p50"), viewP50 / peerP50},
        {QStringLiteral("ratio_p95"), viewP95 / peerP95}};
    const QString dir = qEnvironmentVariable("VEETBOT_BENCH_RESULTS",
                                             QStringLiteral(VEETBOT_SOURCE_DIR "/bench/results"));
    QDir().mkpath(dir);
    QFile file(dir + QStringLiteral("/remoteview-latest.json"));
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        file.write(QJsonDocument(results).toJson());
    return 0;
}
