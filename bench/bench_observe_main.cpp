// veetbot-bench-observe: our side of the observation benchmark (docs/benchmark.md).
//
// Drives a real provider of the chosen engine (--engine: Qt WebEngine offscreen in this process,
// or Debian's Chromium over the DevTools pipe, as the browser host runs them) against one page
// served on loopback by veetbot-fixture-site and writes its measurements as one JSON object:
// cold start
// to the first observation, in-session observe({}) latency, canonical and projected sizes,
// and full walks to complete coverage by cursor and by the projection's next_observe.
// Measurement only: it never changes what the provider, the collector or the projection do,
// and the loopback host is let through only by the test-only overrides the tests use.

#include "BrowserEnvironment.h"
#include "ChromiumProvider.h"
#include "WebEngineProvider.h"
#include "domain/web/BrowserEngine.h"
#include "domain/web/Origin.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"
#include "net/EgressProxy.h"
#include "tools/ModelProjection.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkProxy>
#include <QSaveFile>
#include <QSet>
#include <QTimer>
#include <QWebEnginePage>
#include <QWebEngineProfile>
#include <QtWebEngineCore/qtwebenginecoreglobal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <memory>
#include <unistd.h>

namespace veetbot::bench {

namespace {

// Milliseconds since the kernel started this process (/proc/self/stat start time, at clock-tick
// resolution, usually 10 ms), or -1 when it cannot be read.
double processAgeMs()
{
    QFile file(QStringLiteral("/proc/self/stat"));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray stat = file.readAll();
    // Fields after the command name, which is in parentheses and may contain spaces.
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 20)
        return -1;
    bool ok = false;
    const qint64 startTicks = fields.at(19).toLongLong(&ok); // field 22: starttime
    timespec now = {};
    if (!ok || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0)
        return -1;
    const double startMs = double(startTicks) * 1000.0 / double(::sysconf(_SC_CLK_TCK));
    return double(now.tv_sec) * 1000.0 + double(now.tv_nsec) / 1e6 - startMs;
}

double milliseconds(const QElapsedTimer &timer)
{
    return double(timer.nsecsElapsed()) / 1e6;
}

double rounded(double value)
{
    return std::round(value * 100.0) / 100.0;
}

// Median (mean of the middle two for an even count) and nearest-rank p95, in milliseconds.
QJsonObject summary(QList<double> samples)
{
    std::sort(samples.begin(), samples.end());
    const qsizetype n = samples.size();
    if (n == 0)
        return {};
    const double median =
        n % 2 ? samples.at(n / 2) : (samples.at(n / 2 - 1) + samples.at(n / 2)) / 2;
    const qsizetype p95Rank = qsizetype(std::ceil(0.95 * double(n)));
    QJsonArray all;
    for (double sample : samples)
        all.append(rounded(sample));
    return QJsonObject{{QStringLiteral("n"), int(n)},
                       {QStringLiteral("median_ms"), rounded(median)},
                       {QStringLiteral("p95_ms"), rounded(samples.at(p95Rank - 1))},
                       {QStringLiteral("min_ms"), rounded(samples.first())},
                       {QStringLiteral("max_ms"), rounded(samples.last())},
                       {QStringLiteral("samples_sorted_ms"), all}};
}

QByteArray canonicalBytes(const BrowserObservation &observation)
{
    return QJsonDocument(observation.toJson()).toJson(QJsonDocument::Compact);
}

QString controlKey(const ElementRecord &element)
{
    return element.role + QLatin1Char('\t') + element.name;
}

struct Options
{
    QUrl url;
    TestOverrides overrides;
    int iterations = 30;
    int budget = ModelProjection::kDefaultBudgetBytes;
    QString outPath;
    QString probePath; // optional collector-world script, run last (profiling)
    bool coldStartOnly = false;
    BrowserEngine engine = BrowserEngine::QtWebEngine;
    bool noSandbox = false; // as root, for Chromium as for Qt WebEngine
};

// Runs the measurements one after the other; every provider call is asynchronous and the next
// step starts from its callback.
class ObserveBench : public QObject
{
public:
    ObserveBench(Options options, double processAgeAtMainMs, const QElapsedTimer &sinceMain)
        : m_options(std::move(options)), m_processAgeAtMainMs(processAgeAtMainMs),
          m_sinceMain(sinceMain)
    {
    }

    void start(double appReadyMs)
    {
        m_result.insert(QStringLiteral("engine"), browserEngineName(m_options.engine));
        if (m_options.engine == BrowserEngine::QtWebEngine) {
            m_result.insert(QStringLiteral("qt_webengine_version"),
                            QString::fromLatin1(qWebEngineVersion()));
            m_result.insert(QStringLiteral("chromium_version"),
                            QString::fromLatin1(qWebEngineChromiumVersion()));
        }
        m_result.insert(QStringLiteral("url"), m_options.url.toString());
        m_result.insert(QStringLiteral("iterations"), m_options.iterations);
        m_result.insert(QStringLiteral("budget_bytes"), m_options.budget);

        const Result<Origin> origin = Origin::ofUrl(m_options.url, m_options.overrides);
        if (!origin)
            return fail(QStringLiteral("origin"), origin.error());
        const Result<OriginPolicy> policy = OriginPolicy::create({*origin});
        if (!policy)
            return fail(QStringLiteral("policy"), policy.error());

        const double beforeProviderMs = milliseconds(m_sinceMain);
        QElapsedTimer construct;
        construct.start();
        // As in the tests and the in-process preview: every browser connection goes through
        // the egress proxy, which is also what resolves the test-only host name.
        m_proxy = new EgressProxy(m_options.overrides, this);
        if (!m_proxy->listenTcp())
            return fail(QStringLiteral("egress proxy"),
                        Error{QStringLiteral("bench.proxy"), QStringLiteral("cannot listen")});
        QNetworkProxy::setApplicationProxy(QNetworkProxy(
            QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), m_proxy->tcpPort()));
        // The first loadFinished splits navigate into loading and settling plus capture (Qt
        // WebEngine only; the Chromium side records none).
        auto loadedAtMs = std::make_shared<double>(-1);
        if (m_options.engine == BrowserEngine::Chromium) {
            chromium::ChromiumProcess::Options process;
            process.noSandbox = m_options.noSandbox;
            process.proxy = QStringLiteral("127.0.0.1:%1").arg(m_proxy->tcpPort());
            auto provider =
                std::make_unique<chromium::ChromiumProvider>(*policy, m_options.overrides, process);
            m_chromium = provider.get();
            m_runScript = [browser = provider.get()](const QString &source, auto done) {
                browser->runCollectorScript(source, std::move(done));
            };
            m_provider = std::move(provider);
        } else {
            auto provider = std::make_unique<WebEngineProvider>(*policy, m_options.overrides);
            m_result.insert(QStringLiteral("user_agent"),
                            provider->view()->page()->profile()->httpUserAgent());
            connect(provider->view()->page(), &QWebEnginePage::loadFinished, this,
                    [loadedAtMs, navigate = &m_navigateClock](bool) {
                        if (*loadedAtMs < 0)
                            *loadedAtMs = milliseconds(*navigate);
                    });
            m_runScript = [browser = provider.get()](const QString &source, auto done) {
                browser->runCollectorScript(source, std::move(done));
            };
            m_provider = std::move(provider);
        }
        const double constructMs = milliseconds(construct);
        m_navigateClock.start();
        m_provider->navigate({m_options.url}, [this, appReadyMs, beforeProviderMs, constructMs,
                                               loadedAtMs](Result<BrowserObservation> result) {
            const double navigateMs = milliseconds(m_navigateClock);
            const double mainMs = milliseconds(m_sinceMain);
            if (!result)
                return fail(QStringLiteral("navigate"), result.error());
            if (const std::optional<EngineIdentity> engine = m_provider->engineIdentity())
                m_result.insert(QStringLiteral("chromium_version"), engine->version);
            QJsonObject cold{
                {QStringLiteral("process_age_at_main_ms"), rounded(m_processAgeAtMainMs)},
                {QStringLiteral("application_ready_ms"), rounded(appReadyMs)},
                {QStringLiteral("provider_construct_ms"), rounded(constructMs)},
                {QStringLiteral("navigate_ms"), rounded(navigateMs)},
                {QStringLiteral("load_finished_ms"),
                 *loadedAtMs < 0 ? QJsonValue() : QJsonValue(rounded(*loadedAtMs))},
                {QStringLiteral("from_provider_ms"), rounded(mainMs - beforeProviderMs)},
                {QStringLiteral("from_main_ms"), rounded(mainMs)},
                {QStringLiteral("from_process_start_ms"),
                 m_processAgeAtMainMs < 0 ? QJsonValue()
                                          : QJsonValue(rounded(m_processAgeAtMainMs + mainMs))},
                {QStringLiteral("readiness"),
                 result->readiness ? readinessString(*result->readiness) : QString()},
                {QStringLiteral("first_observation_elements"), int(result->elements.size())},
            };
            m_result.insert(QStringLiteral("cold_start"), cold);
            if (m_options.coldStartOnly)
                return finish();
            observeInSession(0);
        });
    }

private:
    using Next = std::function<void(Result<BrowserObservation>, double ms)>;

    void timedObserve(const ObserveRequest &request, Next next)
    {
        auto clock = std::make_shared<QElapsedTimer>();
        clock->start();
        m_provider->observe(request, [clock, next = std::move(next)](Result<BrowserObservation> r) {
            next(std::move(r), milliseconds(*clock));
        });
    }

    // N observe({}) calls in the same session; sizes from the last one (they do not change).
    void observeInSession(int i)
    {
        if (i == m_options.iterations) {
            m_result.insert(QStringLiteral("observe"), summary(m_observeMs));
            QList<double> projectionMs = m_projectionMs;
            m_result.insert(QStringLiteral("projection_compute"), summary(projectionMs));
            walkByCursor();
            return;
        }
        timedObserve({}, [this, i](Result<BrowserObservation> result, double ms) {
            if (!result)
                return fail(QStringLiteral("observe"), result.error());
            m_observeMs.append(ms);
            QElapsedTimer project;
            project.start();
            const ModelProjection::Projection projection =
                ModelProjection::build(*result, m_options.budget);
            m_projectionMs.append(milliseconds(project));
            if (i + 1 == m_options.iterations)
                recordSizes(*result, projection);
            observeInSession(i + 1);
        });
    }

    void recordSizes(const BrowserObservation &observation,
                     const ModelProjection::Projection &projection)
    {
        const QByteArray canonical = canonicalBytes(observation);
        m_result.insert(
            QStringLiteral("first_window"),
            QJsonObject{
                {QStringLiteral("canonical_bytes"), int(canonical.size())},
                {QStringLiteral("elements"), int(observation.elements.size())},
                {QStringLiteral("text_bytes"), int(observation.text.toUtf8().size())},
                {QStringLiteral("text_scanned_nodes"), observation.textCoverage.scannedNodes},
                {QStringLiteral("text_node_limit_reached"),
                 observation.textCoverage.nodeLimitReached},
                {QStringLiteral("text_limit_reached"), observation.textCoverage.textLimitReached},
                {QStringLiteral("scanned_candidates"), observation.coverage.scannedCandidates},
                {QStringLiteral("projection_bytes"), int(projection.bytes.size())},
                {QStringLiteral("projection_exposed_elements"), projection.exposedElements},
                {QStringLiteral("projection_omitted_text_bytes"),
                 double(projection.omittedTextBytes)},
            });
    }

    // Provider windows: observe({}) then {cursor} until coverage has no next cursor.
    void walkByCursor()
    {
        m_walkControls.clear();
        m_walkWindows = 0;
        m_walkReturned = 0;
        m_walkClock.start();
        timedObserve({},
                     [this](Result<BrowserObservation> r, double) { cursorStep(std::move(r)); });
    }

    void cursorStep(Result<BrowserObservation> result)
    {
        if (!result)
            return fail(QStringLiteral("cursor walk"), result.error());
        ++m_walkWindows;
        m_walkReturned += int(result->elements.size());
        for (const ElementRecord &element : result->elements)
            m_walkControls.insert(controlKey(element));
        if (!result->coverage.nextCursor) {
            m_result.insert(QStringLiteral("walk_cursor"), walkSummary(*result));
            walkByProjection();
            return;
        }
        const Result<ObserveRequest> next = ObserveRequest::cursor(*result->coverage.nextCursor);
        if (!next)
            return fail(QStringLiteral("cursor walk"), next.error());
        timedObserve(*next,
                     [this](Result<BrowserObservation> r, double) { cursorStep(std::move(r)); });
    }

    // What a model with the default budget does: read the projection, follow its
    // next_observe ({after} or {cursor}) until it has none.
    void walkByProjection()
    {
        m_walkControls.clear();
        m_walkWindows = 0;
        m_walkReturned = 0;
        m_walkProjectedBytes = 0;
        m_walkClock.start();
        timedObserve(
            {}, [this](Result<BrowserObservation> r, double) { projectionStep(std::move(r)); });
    }

    void projectionStep(Result<BrowserObservation> result)
    {
        if (!result)
            return fail(QStringLiteral("projection walk"), result.error());
        const ModelProjection::Projection projection =
            ModelProjection::build(*result, m_options.budget);
        ++m_walkWindows;
        m_walkReturned += projection.exposedElements;
        m_walkProjectedBytes += projection.bytes.size();
        for (int i = 0; i < projection.exposedElements; ++i)
            m_walkControls.insert(controlKey(result->elements.at(i)));
        // Parsed from the bytes the model receives, as a model would.
        const QJsonObject observation = QJsonDocument::fromJson(projection.bytes)
                                            .object()
                                            .value(QStringLiteral("observation"))
                                            .toObject();
        const QJsonValue nextObserve = observation.value(QStringLiteral("next_observe"));
        if (nextObserve.isUndefined()) {
            QJsonObject walk = walkSummary(*result);
            walk.insert(QStringLiteral("projected_bytes_total"), double(m_walkProjectedBytes));
            walk.insert(QStringLiteral("expansion_blocked"), projection.expansionBlocked);
            m_result.insert(QStringLiteral("walk_projection"), walk);
            runProbe();
            return;
        }
        const Result<ObserveRequest> next = ObserveRequest::fromJson(nextObserve.toObject());
        if (!next)
            return fail(QStringLiteral("projection walk"), next.error());
        timedObserve(
            *next, [this](Result<BrowserObservation> r, double) { projectionStep(std::move(r)); });
    }

    QJsonObject walkSummary(const BrowserObservation &last) const
    {
        return QJsonObject{
            {QStringLiteral("windows"), m_walkWindows},
            {QStringLiteral("total_ms"), rounded(milliseconds(m_walkClock))},
            {QStringLiteral("controls_returned"), m_walkReturned},
            {QStringLiteral("distinct_controls"), int(m_walkControls.size())},
            {QStringLiteral("scan_limit_reached"), last.coverage.scanLimitReached},
        };
    }

    // Profiling aid: a script run in the collector's isolated world after everything else
    // (it may disturb the committed capture). Its JSON answer is recorded as it is.
    void runProbe()
    {
        if (m_options.probePath.isEmpty())
            return finish();
        QFile file(m_options.probePath);
        if (!file.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("probe"), Error{QStringLiteral("bench.probe"),
                                                       QStringLiteral("cannot read the probe")});
        auto clock = std::make_shared<QElapsedTimer>();
        clock->start();
        m_runScript(
            QString::fromUtf8(file.readAll()), [this, clock](std::optional<QJsonObject> answer) {
                QJsonObject probe = answer.value_or(QJsonObject{});
                probe.insert(QStringLiteral("round_trip_ms"), rounded(milliseconds(*clock)));
                m_result.insert(QStringLiteral("probe"), probe);
                finish();
            });
    }

    void finish()
    {
        m_result.insert(QStringLiteral("ok"), true);
        write();
        QCoreApplication::exit(0);
    }

    void fail(const QString &step, const Error &error)
    {
        std::fprintf(stderr, "veetbot-bench-observe: %s failed: %s (%s)\n", qPrintable(step),
                     qPrintable(error.code), qPrintable(error.message));
        m_result.insert(QStringLiteral("ok"), false);
        m_result.insert(QStringLiteral("failed_step"), step);
        m_result.insert(QStringLiteral("error"), error.code);
        write();
        QCoreApplication::exit(1);
    }

    void write()
    {
        const QByteArray json = QJsonDocument(m_result).toJson(QJsonDocument::Indented);
        if (m_options.outPath.isEmpty()) {
            std::fwrite(json.constData(), 1, size_t(json.size()), stdout);
            std::fflush(stdout);
            return;
        }
        QSaveFile out(m_options.outPath);
        if (!out.open(QIODevice::WriteOnly) || out.write(json) != json.size() || !out.commit())
            std::fprintf(stderr, "veetbot-bench-observe: cannot write %s\n",
                         qPrintable(m_options.outPath));
    }

    Options m_options;
    double m_processAgeAtMainMs;
    const QElapsedTimer &m_sinceMain;
    EgressProxy *m_proxy = nullptr;
    std::unique_ptr<BrowserProvider> m_provider;
    chromium::ChromiumProvider *m_chromium = nullptr; // m_provider, on the Chromium side
    std::function<void(const QString &, std::function<void(std::optional<QJsonObject>)>)>
        m_runScript;
    QJsonObject m_result;
    QElapsedTimer m_navigateClock;
    QList<double> m_observeMs;
    QList<double> m_projectionMs;
    QElapsedTimer m_walkClock;
    QSet<QString> m_walkControls;
    int m_walkWindows = 0;
    int m_walkReturned = 0;
    qint64 m_walkProjectedBytes = 0;
};

int usageError(const QString &message)
{
    std::fprintf(stderr, "veetbot-bench-observe: %s\n", qPrintable(message));
    return 2;
}

} // namespace
} // namespace veetbot::bench

int main(int argc, char **argv)
{
    using namespace veetbot;
    QElapsedTimer sinceMain;
    sinceMain.start();
    const double processAgeAtMainMs = bench::processAgeMs();

    const bool sandboxOff = BrowserEnvironment::configureProcess();
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("veetbot-bench-observe"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Measures a provider's observations of one loopback page."));
    parser.addHelpOption();
    const QCommandLineOption urlOption(QStringLiteral("url"), QStringLiteral("Page to observe."),
                                       QStringLiteral("URL"));
    const QCommandLineOption resolveOption(
        QStringLiteral("resolve"),
        QStringLiteral("Test-only host mapping, e.g. bench.test=127.0.0.1."),
        QStringLiteral("SPEC"));
    const QCommandLineOption caOption(QStringLiteral("ca"),
                                      QStringLiteral("Test CA the page's certificate ends in."),
                                      QStringLiteral("PEM"));
    const QCommandLineOption iterationsOption(QStringLiteral("iterations"),
                                              QStringLiteral("In-session observe({}) calls."),
                                              QStringLiteral("N"), QStringLiteral("30"));
    const QCommandLineOption budgetOption(
        QStringLiteral("budget"), QStringLiteral("Projection budget in bytes."),
        QStringLiteral("BYTES"), QString::number(ModelProjection::kDefaultBudgetBytes));
    const QCommandLineOption outOption(QStringLiteral("out"),
                                       QStringLiteral("Write the JSON result here."),
                                       QStringLiteral("FILE"));
    const QCommandLineOption probeOption(
        QStringLiteral("probe"),
        QStringLiteral("Profiling: run this script in the collector world at the end."),
        QStringLiteral("FILE"));
    const QCommandLineOption engineOption(
        QStringLiteral("engine"), QStringLiteral("The provider's engine: qtwebengine or chromium."),
        QStringLiteral("NAME"), QStringLiteral("qtwebengine"));
    const QCommandLineOption coldOption(
        QStringLiteral("cold-start-only"),
        QStringLiteral("Stop after the first observation (cold start measurement)."));
    parser.addOptions({urlOption, resolveOption, caOption, iterationsOption, budgetOption,
                       outOption, probeOption, coldOption, engineOption});
    parser.process(app);

    bench::Options options;
    options.url = QUrl(parser.value(urlOption), QUrl::StrictMode);
    if (!options.url.isValid())
        return bench::usageError(QStringLiteral("--url URL is required"));
    if (parser.isSet(resolveOption)) {
        Result<TestOverrides> overrides = TestOverrides::parseResolve(parser.value(resolveOption));
        if (!overrides)
            return bench::usageError(QStringLiteral("--resolve: ") + overrides.error().message);
        options.overrides = overrides.value();
    }
    options.overrides.setCaPath(parser.value(caOption));
    bool ok = false;
    options.iterations = parser.value(iterationsOption).toInt(&ok);
    if (!ok || options.iterations < 1 || options.iterations > 1000)
        return bench::usageError(QStringLiteral("--iterations must be 1..1000"));
    options.budget = parser.value(budgetOption).toInt(&ok);
    if (!ok || options.budget < ModelProjection::kMinBudgetBytes)
        return bench::usageError(QStringLiteral("--budget is too small"));
    options.outPath = parser.value(outOption);
    options.probePath = parser.value(probeOption);
    options.coldStartOnly = parser.isSet(coldOption);
    const std::optional<BrowserEngine> engine = browserEngineFromName(parser.value(engineOption));
    if (!engine)
        return bench::usageError(QStringLiteral("--engine must be qtwebengine or chromium"));
    options.engine = *engine;
    options.noSandbox = sandboxOff;

    const double appReadyMs = double(sinceMain.nsecsElapsed()) / 1e6;
    bench::ObserveBench run(std::move(options), processAgeAtMainMs, sinceMain);
    QTimer::singleShot(0, &run, [&run, appReadyMs] { run.start(appReadyMs); });
    return app.exec();
}
