// The MCP methods of `veetbot mcp` over in-memory devices and a scripted provider:
// initialize always answers 2025-06-18, ping, unknown methods and invalid params, tools/list
// with and without origins (no browser tool, no provider, without them), results as the
// projection at the budget, stable tool failures, acts through the tool pipeline (refused
// before any browser work unless approved; elicitation approve/decline; the ledger),
// cancellation that leaves nothing stale, and the end of input.

#include "domain/observation/ObserveRequest.h"
#include "domain/web/Origin.h"
#include "ledger/EffectLedger.h"
#include "mcp/McpServer.h"
#include "tools/AgentTools.h"
#include "tools/Diagnostics.h"
#include "tools/ModelProjection.h"

#include <QBuffer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace veetbot;
using namespace veetbot::mcp;

namespace {

// Holds every call until the test answers it.
class HeldProvider : public BrowserProvider
{
public:
    struct Held
    {
        QString op;
        ObserveRequest observe;
        QUrl url;
        ObservationCallback done;
    };
    QList<Held> held;
    int acts = 0; // acts whose dispatch gate opened
    bool closed = false;

    ProviderCapabilities capabilities() const override
    {
        ProviderCapabilities capabilities;
        capabilities.navigate = capabilities.observe = capabilities.expand = true;
        capabilities.act = true;
        return capabilities;
    }
    void navigate(const NavigateRequest &request, ObservationCallback done) override
    {
        held.append(Held{QStringLiteral("navigate"), {}, request.url, std::move(done)});
    }
    void observe(const ObserveRequest &request, ObservationCallback done) override
    {
        held.append(Held{QStringLiteral("observe"), request, {}, std::move(done)});
    }
    void act(const ActionRequest &request, ObservationCallback done) override
    {
        askDispatchGate(request, [this, done = std::move(done)](bool open) mutable {
            if (!open) {
                done(ReasonCode::ProviderUnavailable);
                return;
            }
            ++acts;
            held.append(Held{QStringLiteral("act"), {}, {}, std::move(done)});
        });
    }
    void close() override
    {
        closed = true;
        const QList<Held> pending = std::exchange(held, {});
        for (const Held &call : pending)
            call.done(ReasonCode::ProviderUnavailable);
    }
    void answer(int index, Result<BrowserObservation> result)
    {
        QVERIFY2(QTest::qWaitFor([this, index] { return held.size() > index; }, 5000),
                 "the provider holds no such call");
        Held call = held.takeAt(index);
        call.done(std::move(result));
        settle();
    }
    // The pipeline dispatches on the event loop: let queued steps run.
    static void settle()
    {
        for (int i = 0; i < 8; ++i)
            QCoreApplication::processEvents();
    }
};

BrowserObservation observation(int elements = 3, const QString &text = QStringLiteral("Hello"))
{
    BrowserObservation observation;
    observation.url = QUrl(QStringLiteral("https://shop.acme-store.com/cart"));
    observation.title = QStringLiteral("Cart");
    observation.revision = newRevision();
    observation.readiness = Readiness::DomQuiet;
    for (int i = 0; i < elements; ++i) {
        ElementRecord record;
        record.ref = QStringLiteral("ref.%1").arg(i);
        record.role = QStringLiteral("button");
        record.name = QStringLiteral("Button number %1 with a fairly long accessible name").arg(i);
        observation.elements.append(record);
    }
    observation.text = text;
    return observation;
}

OriginPolicy shopPolicy()
{
    QList<Origin> origins{
        Origin::parse(QStringLiteral("https://shop.acme-store.com"), {}).value(),
        Origin::parse(QStringLiteral("https://help.acme-support.org:8443"), {}).value()};
    return OriginPolicy::create(origins).value();
}

class Fixture
{
public:
    explicit Fixture(bool withOrigins = true, McpServer::Options options = {})
    {
        output.open(QIODevice::WriteOnly);
        if (withOrigins)
            options.policy = shopPolicy();
        ledger = std::move(
            EffectLedger::open(ledgerDir.filePath(QStringLiteral("effects.sqlite"))).value());
        options.ledger = ledger.get();
        if (options.serverVersion.isEmpty())
            options.serverVersion = QStringLiteral("1.2.3");
        server = std::make_unique<McpServer>(&output, options, [this] {
            ++providersCreated;
            auto created = std::make_unique<HeldProvider>();
            provider = created.get();
            return created;
        });
    }

    void send(const QJsonObject &message)
    {
        server->channel().receive(
            QByteArray(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n'));
        HeldProvider::settle();
    }
    void request(const QJsonValue &id, const QString &method,
                 const QJsonValue &params = QJsonValue(QJsonValue::Undefined))
    {
        QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                            {QStringLiteral("id"), id},
                            {QStringLiteral("method"), method}};
        if (!params.isUndefined())
            message.insert(QStringLiteral("params"), params);
        send(message);
    }
    void notify(const QString &method, const QJsonObject &params = {})
    {
        QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                            {QStringLiteral("method"), method}};
        if (!params.isEmpty())
            message.insert(QStringLiteral("params"), params);
        send(message);
    }
    void call(const QJsonValue &id, const QString &tool, const QJsonObject &arguments)
    {
        request(
            id, QStringLiteral("tools/call"),
            QJsonObject{{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}});
    }

    QList<QJsonObject> written() const
    {
        QList<QJsonObject> messages;
        for (const QByteArray &line : output.data().split('\n')) {
            if (!line.isEmpty())
                messages.append(QJsonDocument::fromJson(line).object());
        }
        return messages;
    }
    // The answer with this id; an empty object when there is none, a failure when several.
    QJsonObject answerTo(const QJsonValue &id) const
    {
        QJsonObject found;
        int count = 0;
        for (const QJsonObject &message : written()) {
            if (message.value(QLatin1String("id")) == id &&
                !message.contains(QLatin1String("method"))) {
                found = message;
                ++count;
            }
        }
        if (count > 1)
            qFatal("answered more than once");
        return found;
    }
    static int errorCode(const QJsonObject &answer)
    {
        return answer.value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt();
    }
    // A tools/call result's text and isError.
    static QString text(const QJsonObject &answer)
    {
        const QJsonArray content = answer.value(QLatin1String("result"))
                                       .toObject()
                                       .value(QLatin1String("content"))
                                       .toArray();
        if (content.size() != 1 ||
            content[0].toObject().value(QLatin1String("type")).toString() != QLatin1String("text"))
            return QStringLiteral("<not one text item>");
        return content[0].toObject().value(QLatin1String("text")).toString();
    }
    static bool isError(const QJsonObject &answer)
    {
        return answer.value(QLatin1String("result"))
            .toObject()
            .value(QLatin1String("isError"))
            .toBool();
    }
    static QString toolErrorCode(const QJsonObject &answer)
    {
        return QJsonDocument::fromJson(text(answer).toUtf8())
            .object()
            .value(QLatin1String("error"))
            .toObject()
            .value(QLatin1String("code"))
            .toString();
    }

    // The server-to-client request with this method, last sent.
    QJsonObject lastRequest(const QString &method) const
    {
        QJsonObject found;
        for (const QJsonObject &message : written()) {
            if (message.value(QLatin1String("method")) == method &&
                message.contains(QLatin1String("id")))
                found = message;
        }
        return found;
    }

    // A client that declares elicitation observes `seen`, then calls act `actId` on its first
    // element; the elicitation/create the server sent for it (empty when none).
    QJsonObject askToApproveAct(const BrowserObservation &seen, const QJsonValue &actId)
    {
        request(QStringLiteral("init"), QStringLiteral("initialize"),
                QJsonObject{{QStringLiteral("capabilities"),
                             QJsonObject{{QStringLiteral("elicitation"), QJsonObject()}}}});
        call(QStringLiteral("observe"), AgentTools::kObserve, QJsonObject());
        provider->answer(0, seen);
        call(actId, AgentTools::kAct,
             QJsonObject{{QStringLiteral("kind"), QStringLiteral("click")},
                         {QStringLiteral("expected_revision"), seen.revision},
                         {QStringLiteral("ref"), seen.elements.first().ref}});
        return lastRequest(QStringLiteral("elicitation/create"));
    }

    QTemporaryDir ledgerDir;
    std::unique_ptr<EffectLedger> ledger;
    QBuffer output;
    std::unique_ptr<McpServer> server;
    HeldProvider *provider = nullptr;
    int providersCreated = 0;
};

QJsonObject act(const char *json)
{
    return QJsonDocument::fromJson(json).object();
}

} // namespace

class TestMcpServer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initializeAlwaysAnswers20250618_data();
    void initializeAlwaysAnswers20250618();
    void initializeRecordsElicitationSupport();
    void pingAnswersEmptyResult();
    void unknownMethodAndNotification();
    void invalidParams_data();
    void invalidParams();
    void withoutOriginsThereIsNoBrowserTool();
    void toolsListNamesAndSchemas();
    void providerIsCreatedOnFirstBrowserCall();
    void navigateReturnsTheProjection();
    void resultsStayWithinTheBudget();
    void navigateRefusalsBeforeAnyBrowserWork_data();
    void navigateRefusalsBeforeAnyBrowserWork();
    void observePassesTheExactRequest();
    void observeInvalidArguments();
    void providerFailureIsAToolError();
    void everyActIsRefusedBeforeBrowserWork_data();
    void everyActIsRefusedBeforeBrowserWork();
    void elicitationApprovesOrDeclinesEachAct_data();
    void elicitationApprovesOrDeclinesEachAct();
    void cancellingAnActWaitingForApprovalSendsNothing();
    void aWaitingCallReportsProgressUntilAnswered();
    void actInvalidArguments_data();
    void actInvalidArguments();
    void cancelledCallNeverAnswers();
    void cancellingUnknownOrFinishedCallsChangesNothing();
    void duplicateIdInFlightIsRefused();
    void endOfInputStopsServingAndClosesTheProvider();
    void serverToClientRequestsRouteThroughTheChannel();
};

void TestMcpServer::initializeAlwaysAnswers20250618_data()
{
    QTest::addColumn<QJsonValue>("requested");
    QTest::newRow("same") << QJsonValue(QStringLiteral("2025-06-18"));
    QTest::newRow("older") << QJsonValue(QStringLiteral("2024-11-05"));
    QTest::newRow("newer") << QJsonValue(QStringLiteral("2099-01-01"));
    QTest::newRow("absent") << QJsonValue(QJsonValue::Undefined);
}

void TestMcpServer::initializeAlwaysAnswers20250618()
{
    QFETCH(QJsonValue, requested);
    Fixture f;
    QJsonObject params{{QStringLiteral("capabilities"), QJsonObject()},
                       {QStringLiteral("clientInfo"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("t")},
                                    {QStringLiteral("version"), QStringLiteral("0")}}}};
    if (!requested.isUndefined())
        params.insert(QStringLiteral("protocolVersion"), requested);
    f.request(1, QStringLiteral("initialize"), params);
    f.request(2, QStringLiteral("initialize"), params); // every initialize, not just the first
    for (const int id : {1, 2}) {
        const QJsonObject result = f.answerTo(id).value(QLatin1String("result")).toObject();
        QCOMPARE(result.value(QLatin1String("protocolVersion")).toString(),
                 QStringLiteral("2025-06-18"));
        const QJsonObject info = result.value(QLatin1String("serverInfo")).toObject();
        QCOMPARE(info.value(QLatin1String("name")).toString(), QStringLiteral("veetbot"));
        QCOMPARE(info.value(QLatin1String("version")).toString(), QStringLiteral("1.2.3"));
        QVERIFY(result.value(QLatin1String("capabilities"))
                    .toObject()
                    .value(QLatin1String("tools"))
                    .isObject());
    }
    f.notify(QStringLiteral("notifications/initialized"));
    QCOMPARE(f.written().size(), 2);
    QCOMPARE(f.providersCreated, 0);
}

void TestMcpServer::initializeRecordsElicitationSupport()
{
    Fixture f;
    f.request(1, QStringLiteral("initialize"),
              QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                          {QStringLiteral("capabilities"),
                           QJsonObject{{QStringLiteral("elicitation"), QJsonObject()}}}});
    QVERIFY(f.server->clientSupportsElicitation());
    f.request(2, QStringLiteral("initialize"),
              QJsonObject{{QStringLiteral("capabilities"), QJsonObject()}});
    QVERIFY(!f.server->clientSupportsElicitation());
}

void TestMcpServer::pingAnswersEmptyResult()
{
    Fixture f;
    f.request(QStringLiteral("p"), QStringLiteral("ping"));
    const QJsonObject answer = f.answerTo(QStringLiteral("p"));
    QCOMPARE(answer.value(QLatin1String("result")).toObject(), QJsonObject());
    QVERIFY(!answer.contains(QLatin1String("error")));
}

void TestMcpServer::unknownMethodAndNotification()
{
    Fixture f;
    f.request(1, QStringLiteral("resources/list"));
    f.request(2, QStringLiteral("tools/CALL"));
    QCOMPARE(Fixture::errorCode(f.answerTo(1)), JsonRpcErrorCode::kMethodNotFound);
    QCOMPARE(Fixture::errorCode(f.answerTo(2)), JsonRpcErrorCode::kMethodNotFound);
    f.notify(QStringLiteral("notifications/whatever"));
    QCOMPARE(f.written().size(), 2);
}

void TestMcpServer::invalidParams_data()
{
    QTest::addColumn<QString>("method");
    QTest::addColumn<QJsonValue>("params");
    QTest::newRow("tools/call array") << QStringLiteral("tools/call") << QJsonValue(QJsonArray{1});
    QTest::newRow("tools/call no name")
        << QStringLiteral("tools/call") << QJsonValue(QJsonObject());
    QTest::newRow("tools/call name number")
        << QStringLiteral("tools/call") << QJsonValue(QJsonObject{{QStringLiteral("name"), 1}});
    QTest::newRow("tools/call arguments array")
        << QStringLiteral("tools/call")
        << QJsonValue(QJsonObject{{QStringLiteral("name"), QStringLiteral("veetbot_observe")},
                                  {QStringLiteral("arguments"), QJsonArray()}});
    QTest::newRow("unknown tool") << QStringLiteral("tools/call")
                                  << QJsonValue(QJsonObject{{QStringLiteral("name"),
                                                             QStringLiteral("browser_navigate")}});
    QTest::newRow("initialize capabilities string")
        << QStringLiteral("initialize")
        << QJsonValue(QJsonObject{{QStringLiteral("capabilities"), QStringLiteral("x")}});
    QTest::newRow("ping array") << QStringLiteral("ping") << QJsonValue(QJsonArray());
}

void TestMcpServer::invalidParams()
{
    QFETCH(QString, method);
    QFETCH(QJsonValue, params);
    Fixture f;
    f.request(5, method, params);
    QCOMPARE(Fixture::errorCode(f.answerTo(5)), JsonRpcErrorCode::kInvalidParams);
    QCOMPARE(f.providersCreated, 0);
    f.request(6, QStringLiteral("ping"));
    QVERIFY(f.answerTo(6).contains(QLatin1String("result")));
}

void TestMcpServer::withoutOriginsThereIsNoBrowserTool()
{
    Fixture f(false);
    f.request(1, QStringLiteral("tools/list"));
    QCOMPARE(f.answerTo(1)
                 .value(QLatin1String("result"))
                 .toObject()
                 .value(QLatin1String("tools"))
                 .toArray(),
             QJsonArray());
    int id = 10;
    for (const QLatin1String tool :
         {AgentTools::kNavigate, AgentTools::kObserve, AgentTools::kAct}) {
        f.call(id, tool, QJsonObject());
        QCOMPARE(Fixture::errorCode(f.answerTo(id)), JsonRpcErrorCode::kInvalidParams);
        ++id;
    }
    f.call(id, AgentTools::kNavigate,
           QJsonObject{{QStringLiteral("url"), QStringLiteral("https://shop.acme-store.com/")}});
    QCOMPARE(Fixture::errorCode(f.answerTo(id)), JsonRpcErrorCode::kInvalidParams);
    QCOMPARE(f.providersCreated, 0);
}

void TestMcpServer::toolsListNamesAndSchemas()
{
    Fixture f;
    f.request(1, QStringLiteral("tools/list"), QJsonObject());
    const QJsonArray tools = f.answerTo(1)
                                 .value(QLatin1String("result"))
                                 .toObject()
                                 .value(QLatin1String("tools"))
                                 .toArray();
    QStringList names;
    for (const QJsonValue &value : tools) {
        const QJsonObject tool = value.toObject();
        names.append(tool.value(QLatin1String("name")).toString());
        QVERIFY(!names.last().startsWith(QLatin1String("browser_")));
        const QString description = tool.value(QLatin1String("description")).toString();
        QVERIFY2(description.contains(QLatin1String("https://shop.acme-store.com")) &&
                     description.contains(QLatin1String("https://help.acme-support.org:8443")),
                 qPrintable(names.last()));
        const QJsonObject schema = tool.value(QLatin1String("inputSchema")).toObject();
        QCOMPARE(schema.value(QLatin1String("type")).toString(), QStringLiteral("object"));
    }
    QCOMPARE(names,
             (QStringList{QStringLiteral("veetbot_navigate"), QStringLiteral("veetbot_observe"),
                          QStringLiteral("veetbot_act")}));

    const QJsonObject navigate = AgentTools::navigateInputSchema();
    QCOMPARE(navigate.value(QLatin1String("additionalProperties")), QJsonValue(false));
    QCOMPARE(navigate.value(QLatin1String("required")).toArray(),
             QJsonArray{QStringLiteral("url")});

    // One closed branch per observe mode; the first is exactly {}.
    const QJsonArray modes =
        AgentTools::observeInputSchema().value(QLatin1String("oneOf")).toArray();
    QCOMPARE(modes.size(), 6);
    QStringList modeKeys;
    for (const QJsonValue &mode : modes) {
        const QJsonObject branch = mode.toObject();
        QCOMPARE(branch.value(QLatin1String("additionalProperties")), QJsonValue(false));
        modeKeys.append(
            branch.value(QLatin1String("properties")).toObject().keys().join(QLatin1Char('+')));
    }
    QCOMPARE(modeKeys, (QStringList{QString(), QStringLiteral("after"), QStringLiteral("cursor"),
                                    QStringLiteral("wait_for"), QStringLiteral("extract"),
                                    QStringLiteral("expected_revision+region_ref+text_offset")}));

    const QJsonArray kinds = AgentTools::actInputSchema().value(QLatin1String("oneOf")).toArray();
    QStringList kindNames;
    for (const QJsonValue &kind : kinds) {
        const QJsonObject branch = kind.toObject();
        QCOMPARE(branch.value(QLatin1String("additionalProperties")), QJsonValue(false));
        const QJsonArray required = branch.value(QLatin1String("required")).toArray();
        QVERIFY(required.contains(QStringLiteral("expected_revision")));
        QVERIFY(required.contains(QStringLiteral("ref")));
        kindNames.append(branch.value(QLatin1String("properties"))
                             .toObject()
                             .value(QLatin1String("kind"))
                             .toObject()
                             .value(QLatin1String("const"))
                             .toString());
    }
    QCOMPARE(kindNames, (QStringList{QStringLiteral("click"), QStringLiteral("type"),
                                     QStringLiteral("select"), QStringLiteral("check"),
                                     QStringLiteral("press"), QStringLiteral("scroll")}));
    QCOMPARE(f.providersCreated, 0);
}

void TestMcpServer::providerIsCreatedOnFirstBrowserCall()
{
    Fixture f;
    f.request(1, QStringLiteral("initialize"), QJsonObject());
    f.request(2, QStringLiteral("tools/list"));
    QCOMPARE(f.providersCreated, 0);
    QVERIFY(!f.server->providerCreated());
    f.call(3, AgentTools::kObserve, QJsonObject());
    QCOMPARE(f.providersCreated, 1);
    f.call(4, AgentTools::kObserve, QJsonObject());
    QCOMPARE(f.providersCreated, 1);
    // One call at a time reaches the provider, in arrival order.
    QCOMPARE(f.provider->held.size(), 1);
    f.provider->answer(0, observation());
    QCOMPARE(f.provider->held.size(), 1);
}

void TestMcpServer::navigateReturnsTheProjection()
{
    Fixture f;
    f.call(
        1, AgentTools::kNavigate,
        QJsonObject{{QStringLiteral("url"), QStringLiteral("https://shop.acme-store.com/cart")}});
    QCOMPARE(f.provider->held.size(), 1);
    QCOMPARE(f.provider->held[0].op, QStringLiteral("navigate"));
    QCOMPARE(f.provider->held[0].url, QUrl(QStringLiteral("https://shop.acme-store.com/cart")));
    QVERIFY(f.answerTo(1).isEmpty()); // nothing until the provider answers
    const BrowserObservation seen = observation();
    f.provider->answer(0, seen);
    const QJsonObject answer = f.answerTo(1);
    QVERIFY(!Fixture::isError(answer));
    QCOMPARE(Fixture::text(answer).toUtf8(),
             ModelProjection::project(seen, ModelProjection::kDefaultBudgetBytes));
    // The call's content-free diagnostics ride along as result metadata, valid and closed.
    const QJsonObject meta =
        answer.value(QLatin1String("result")).toObject().value(QLatin1String("_meta")).toObject();
    QCOMPARE(meta.keys(), QStringList{QString(McpServer::kDiagnosticsMetaKey)});
    const auto diagnostics =
        Diagnostics::Summary::fromJson(meta.value(McpServer::kDiagnosticsMetaKey).toObject());
    QVERIFY(diagnostics.has_value());
    QVERIFY(!diagnostics->phases.isEmpty());
    QCOMPARE(diagnostics->phases.last().phase, Diagnostics::Phase::Navigation);
    QVERIFY(!QJsonDocument(meta).toJson().contains("acme-store"));
}

void TestMcpServer::resultsStayWithinTheBudget()
{
    McpServer::Options options;
    options.budgetBytes = 1024;
    Fixture f(true, options);
    f.call(1, AgentTools::kObserve, QJsonObject());
    const BrowserObservation seen = observation(200, QString(50000, QLatin1Char('z')));
    f.provider->answer(0, seen);
    const QByteArray text = Fixture::text(f.answerTo(1)).toUtf8();
    QVERIFY(text.size() <= 1024);
    QCOMPARE(text, ModelProjection::project(seen, 1024));
    QVERIFY(QJsonDocument::fromJson(text).isObject());
}

void TestMcpServer::navigateRefusalsBeforeAnyBrowserWork_data()
{
    QTest::addColumn<QJsonObject>("arguments");
    QTest::addColumn<QString>("code");
    const QString invalid = QStringLiteral("tool.invalid_arguments");
    const QString disallowed = QStringLiteral("tool.browser.url_disallowed");
    QTest::newRow("no url") << QJsonObject() << invalid;
    QTest::newRow("url number") << QJsonObject{{QStringLiteral("url"), 5}} << invalid;
    QTest::newRow("extra key") << QJsonObject{{QStringLiteral("url"),
                                               QStringLiteral("https://shop.acme-store.com/")},
                                              {QStringLiteral("wait"), true}}
                               << invalid;
    QTest::newRow("empty url") << QJsonObject{{QStringLiteral("url"), QString()}} << invalid;
    QTest::newRow("other origin")
        << QJsonObject{{QStringLiteral("url"),
                        QStringLiteral("https://evil.acme-other.net/?token=SECRET-CANARY")}}
        << disallowed;
    QTest::newRow("other port")
        << QJsonObject{{QStringLiteral("url"), QStringLiteral("https://shop.acme-store.com:8443/")}}
        << disallowed;
    QTest::newRow("http") << QJsonObject{{QStringLiteral("url"),
                                          QStringLiteral("http://shop.acme-store.com/")}}
                          << disallowed;
    QTest::newRow("ip literal") << QJsonObject{{QStringLiteral("url"),
                                                QStringLiteral("https://127.0.0.1/")}}
                                << disallowed;
    QTest::newRow("javascript") << QJsonObject{{QStringLiteral("url"),
                                                QStringLiteral("javascript:alert(1)")}}
                                << disallowed;
}

void TestMcpServer::navigateRefusalsBeforeAnyBrowserWork()
{
    QFETCH(QJsonObject, arguments);
    QFETCH(QString, code);
    Fixture f;
    f.call(1, AgentTools::kNavigate, arguments);
    const QJsonObject answer = f.answerTo(1);
    QVERIFY(Fixture::isError(answer));
    QCOMPARE(Fixture::toolErrorCode(answer), code);
    QCOMPARE(f.providersCreated, 0);
    QVERIFY(!f.output.data().contains("SECRET-CANARY"));
    const QJsonObject error = QJsonDocument::fromJson(Fixture::text(answer).toUtf8())
                                  .object()
                                  .value(QLatin1String("error"))
                                  .toObject();
    QCOMPARE(error.keys(), (QStringList{QStringLiteral("code"), QStringLiteral("message")}));
}

void TestMcpServer::observePassesTheExactRequest()
{
    Fixture f;
    const QJsonObject after{{QStringLiteral("after"), QStringLiteral("abc.3")}};
    f.call(1, AgentTools::kObserve, after);
    QCOMPARE(f.provider->held.size(), 1);
    QCOMPARE(f.provider->held[0].op, QStringLiteral("observe"));
    QCOMPARE(f.provider->held[0].observe, ObserveRequest::fromJson(after).value());
    f.provider->answer(0, observation());
    QVERIFY(!Fixture::isError(f.answerTo(1)));
}

void TestMcpServer::observeInvalidArguments()
{
    Fixture f;
    const QList<QJsonObject> bad{
        QJsonObject{{QStringLiteral("after"), 1}},
        QJsonObject{{QStringLiteral("after"), QStringLiteral("a")},
                    {QStringLiteral("cursor"), QStringLiteral("b")}},
        QJsonObject{{QStringLiteral("cursor"), QStringLiteral("short")}},
        QJsonObject{{QStringLiteral("selector"), QStringLiteral("#buy")}},
        QJsonObject{{QStringLiteral("wait_for"),
                     QJsonObject{{QStringLiteral("role"), QStringLiteral("button")}}}},
    };
    int id = 1;
    for (const QJsonObject &arguments : bad) {
        f.call(id, AgentTools::kObserve, arguments);
        QVERIFY(Fixture::isError(f.answerTo(id)));
        QCOMPARE(Fixture::toolErrorCode(f.answerTo(id)), QStringLiteral("tool.invalid_arguments"));
        ++id;
    }
    QCOMPARE(f.providersCreated, 0);
}

void TestMcpServer::providerFailureIsAToolError()
{
    Fixture f;
    f.call(1, AgentTools::kObserve, QJsonObject());
    f.provider->answer(0, Error::fromReason(ReasonCode::PageChanged));
    const QJsonObject answer = f.answerTo(1);
    QVERIFY(Fixture::isError(answer));
    const QJsonObject error = QJsonDocument::fromJson(Fixture::text(answer).toUtf8())
                                  .object()
                                  .value(QLatin1String("error"))
                                  .toObject();
    QCOMPARE(error.value(QLatin1String("code")).toString(),
             QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(error.value(QLatin1String("message")).toString(),
             reasonCodeMessage(ReasonCode::PageChanged));
}

void TestMcpServer::everyActIsRefusedBeforeBrowserWork_data()
{
    QTest::addColumn<QJsonObject>("arguments");
    QTest::addColumn<int>("approver");
    QTest::addColumn<bool>("allowScroll");
    QTest::addColumn<bool>("ownerTurns"); // --trust-turns owner
    const int deny = int(McpServer::Approver::Deny);
    const int elicitation = int(McpServer::Approver::Elicitation);
    QTest::newRow("click") << act(R"({"kind":"click","expected_revision":"r1","ref":"a.1"})")
                           << deny << false << false;
    QTest::newRow("type")
        << act(R"({"kind":"type","expected_revision":"r1","ref":"a.1","text":"hi"})") << deny
        << false << false;
    QTest::newRow("select")
        << act(R"({"kind":"select","expected_revision":"r1","ref":"a.1","option":"Red"})") << deny
        << false << false;
    QTest::newRow("check")
        << act(R"({"kind":"check","expected_revision":"r1","ref":"a.1","checked":true})") << deny
        << false << false;
    QTest::newRow("press")
        << act(R"({"kind":"press","expected_revision":"r1","ref":"a.1","key":"Enter"})") << deny
        << false << false;
    QTest::newRow("scroll")
        << act(R"({"kind":"scroll","expected_revision":"r1","ref":"a.1","delta":-2000})") << deny
        << false << false;
    QTest::newRow("scroll allowed")
        << act(R"({"kind":"scroll","expected_revision":"r1","ref":"a.1","delta":300})") << deny
        << true << true;
    QTest::newRow("postcondition")
        << act(R"({"kind":"click","expected_revision":"r1","ref":"a.1","postcondition":{"role":"status","name":"Saved"}})")
        << deny << false << false;
    QTest::newRow("elicitation click")
        << act(R"({"kind":"click","expected_revision":"r1","ref":"a.1"})") << elicitation << false
        << false;
    // The bounded scroll permission needs a turn the owner opened: without the owner's
    // statement, it does not apply.
    QTest::newRow("scroll allowed, turn not the owner's")
        << act(R"({"kind":"scroll","expected_revision":"r1","ref":"a.1","delta":300})") << deny
        << true << false;
    QTest::newRow("scroll not allowed, turn the owner's")
        << act(R"({"kind":"scroll","expected_revision":"r1","ref":"a.1","delta":300})") << deny
        << false << true;
}

void TestMcpServer::everyActIsRefusedBeforeBrowserWork()
{
    QFETCH(QJsonObject, arguments);
    QFETCH(int, approver);
    QFETCH(bool, allowScroll);
    QFETCH(bool, ownerTurns);
    McpServer::Options options;
    options.approver = McpServer::Approver(approver);
    options.allowScroll = allowScroll;
    options.turns = ownerTurns ? TurnSource::Owner : TurnSource::UntrustedContent;
    Fixture f(true, options);
    const auto refusedWith = [&f](const QString &id, const QString &code) {
        const QJsonObject answer = f.answerTo(id);
        QVERIFY(Fixture::isError(answer));
        QCOMPARE(Fixture::toolErrorCode(answer), code);
    };

    // Before any browser call no revision exists: refused without creating the provider.
    f.call(QStringLiteral("early"), AgentTools::kAct, arguments);
    refusedWith(QStringLiteral("early"), QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(f.providersCreated, 0);

    f.call(QStringLiteral("nav"), AgentTools::kNavigate,
           QJsonObject{{QStringLiteral("url"), QStringLiteral("https://shop.acme-store.com/")}});
    const BrowserObservation seen = observation();
    f.provider->answer(0, seen);
    QVERIFY(!Fixture::isError(f.answerTo(QStringLiteral("nav"))));

    // A revision that was not observed is refused before anyone is asked.
    f.call(QStringLiteral("stale"), AgentTools::kAct, arguments);
    refusedWith(QStringLiteral("stale"), QStringLiteral("tool.browser.page_changed"));

    // The observed revision: the deny approver refuses, an elicitation approver with a client
    // that never declared elicitation fails closed; nothing reaches the provider. Only the
    // bounded scroll the owner allowed runs, exactly once.
    QJsonObject current = arguments;
    current.insert(QStringLiteral("expected_revision"), seen.revision);
    current.insert(QStringLiteral("ref"), seen.elements.first().ref);
    f.call(QStringLiteral("current"), AgentTools::kAct, current);
    if (allowScroll && ownerTurns) {
        QCOMPARE(f.provider->acts, 1);
        f.provider->answer(0, observation());
        QVERIFY(!Fixture::isError(f.answerTo(QStringLiteral("current"))));
        const EffectRecord scrolled = *f.ledger->record(f.ledger->records()->last().id);
        QCOMPARE(scrolled.state, EffectState::Dispatched);
        QCOMPARE(scrolled.authority,
                 std::optional<EffectAuthority>(EffectAuthority::ScrollPermission));
    } else {
        QVERIFY(QTest::qWaitFor([&f] { return !f.answerTo(QStringLiteral("current")).isEmpty(); },
                                5000));
        QCOMPARE(
            Fixture::text(f.answerTo(QStringLiteral("current"))),
            QStringLiteral(
                R"({"error":{"code":"tool.approval_denied","message":"The action was not approved."}})"));
        QCOMPARE(f.provider->acts, 0);
        QVERIFY(f.provider->held.isEmpty());
        const auto records = f.ledger->records();
        QCOMPARE(records->size(), 1);
        QCOMPARE(records->first().state, EffectState::NotSent);
    }
}

// --approver elicitation with a client that declared elicitation: each act is one
// elicitation/create with the approval view; only accept + approve:true dispatches, once.
void TestMcpServer::elicitationApprovesOrDeclinesEachAct_data()
{
    QTest::addColumn<QJsonObject>("answer");
    QTest::addColumn<bool>("dispatched");
    QTest::newRow("approve") << QJsonObject{{QStringLiteral("action"), QStringLiteral("accept")},
                                            {QStringLiteral("content"),
                                             QJsonObject{{QStringLiteral("approve"), true}}}}
                             << true;
    QTest::newRow("accept, approve false")
        << QJsonObject{{QStringLiteral("action"), QStringLiteral("accept")},
                       {QStringLiteral("content"), QJsonObject{{QStringLiteral("approve"), false}}}}
        << false;
    QTest::newRow("decline") << QJsonObject{{QStringLiteral("action"), QStringLiteral("decline")}}
                             << false;
    QTest::newRow("cancel") << QJsonObject{{QStringLiteral("action"), QStringLiteral("cancel")}}
                            << false;
}

void TestMcpServer::elicitationApprovesOrDeclinesEachAct()
{
    QFETCH(QJsonObject, answer);
    QFETCH(bool, dispatched);
    McpServer::Options options;
    options.approver = McpServer::Approver::Elicitation;
    Fixture f(true, options);
    const BrowserObservation seen = observation();
    const QJsonObject ask = f.askToApproveAct(seen, 3);
    QVERIFY(!ask.isEmpty());
    QVERIFY(f.answerTo(3).isEmpty()); // waiting for the owner
    QCOMPARE(f.provider->acts, 0);
    const QByteArray asked = QJsonDocument(ask).toJson(QJsonDocument::Compact);
    QVERIFY(!asked.contains(seen.revision.toUtf8())); // never the revision or the ref
    QVERIFY(!asked.contains("\"ref.0\""));
    f.send(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                       {QStringLiteral("id"), ask.value(QLatin1String("id"))},
                       {QStringLiteral("result"), answer}});
    const auto records = f.ledger->records();
    QCOMPARE(records->size(), 1);
    if (dispatched) {
        QCOMPARE(f.provider->acts, 1);
        QCOMPARE(records->first().state, EffectState::DispatchStarted);
        QCOMPARE(records->first().authority,
                 std::optional<EffectAuthority>(EffectAuthority::OwnerApproval));
        f.provider->answer(0, observation());
        QVERIFY(!Fixture::isError(f.answerTo(3)));
        QCOMPARE(f.ledger->record(records->first().id)->state, EffectState::Dispatched);
        // The approval was single use: the old revision is retired, and an act on the new
        // one asks the owner again.
        f.call(4, AgentTools::kAct,
               QJsonObject{{QStringLiteral("kind"), QStringLiteral("click")},
                           {QStringLiteral("expected_revision"), seen.revision},
                           {QStringLiteral("ref"), seen.elements.first().ref}});
        QCOMPARE(Fixture::toolErrorCode(f.answerTo(4)),
                 QStringLiteral("tool.browser.page_changed"));
        const QString next = QJsonDocument::fromJson(Fixture::text(f.answerTo(3)).toUtf8())
                                 .object()
                                 .value(QLatin1String("observation"))
                                 .toObject()
                                 .value(QLatin1String("revision"))
                                 .toString();
        QVERIFY(!next.isEmpty());
        f.call(5, AgentTools::kAct,
               QJsonObject{{QStringLiteral("kind"), QStringLiteral("click")},
                           {QStringLiteral("expected_revision"), next},
                           {QStringLiteral("ref"), seen.elements.first().ref}});
        const QJsonObject askAgain = f.lastRequest(QStringLiteral("elicitation/create"));
        QVERIFY(askAgain.value(QLatin1String("id")) != ask.value(QLatin1String("id")));
        QCOMPARE(f.provider->acts, 1);
    } else {
        QCOMPARE(f.provider->acts, 0);
        QCOMPARE(Fixture::toolErrorCode(f.answerTo(3)), QStringLiteral("tool.approval_denied"));
        QCOMPARE(records->first().state, EffectState::NotSent);
    }
}

// Cancelling a call that waits for the owner withdraws the question and sends nothing.
void TestMcpServer::cancellingAnActWaitingForApprovalSendsNothing()
{
    McpServer::Options options;
    options.approver = McpServer::Approver::Elicitation;
    Fixture f(true, options);
    const QJsonObject ask = f.askToApproveAct(observation(), 3);
    QVERIFY(!ask.isEmpty());
    f.notify(QStringLiteral("notifications/cancelled"),
             QJsonObject{{QStringLiteral("requestId"), 3}});
    QVERIFY(QTest::qWaitFor(
        [&f] { return f.ledger->records()->first().state == EffectState::NotSent; }, 5000));
    // The late approval changes nothing.
    f.send(QJsonObject{
        {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
        {QStringLiteral("id"), ask.value(QLatin1String("id"))},
        {QStringLiteral("result"), QJsonObject{{QStringLiteral("action"), QStringLiteral("accept")},
                                               {QStringLiteral("content"),
                                                QJsonObject{{QStringLiteral("approve"), true}}}}}});
    QCOMPARE(f.provider->acts, 0);
    QVERIFY(f.answerTo(3).isEmpty());
}

void TestMcpServer::aWaitingCallReportsProgressUntilAnswered()
{
    McpServer::Options options;
    options.approver = McpServer::Approver::Elicitation;
    options.progressIntervalMs = 50;
    Fixture f(true, options);
    const BrowserObservation seen = observation();
    f.request(QStringLiteral("init"), QStringLiteral("initialize"),
              QJsonObject{{QStringLiteral("capabilities"),
                           QJsonObject{{QStringLiteral("elicitation"), QJsonObject()}}}});
    f.call(QStringLiteral("observe"), AgentTools::kObserve, QJsonObject());
    f.provider->answer(0, seen);
    // An act with a progress token waits for the owner; the client hears progress meanwhile.
    f.request(7, QStringLiteral("tools/call"),
              QJsonObject{{QStringLiteral("name"), AgentTools::kAct},
                          {QStringLiteral("arguments"),
                           QJsonObject{{QStringLiteral("kind"), QStringLiteral("click")},
                                       {QStringLiteral("expected_revision"), seen.revision},
                                       {QStringLiteral("ref"), seen.elements.first().ref}}},
                          {QStringLiteral("_meta"),
                           QJsonObject{{QStringLiteral("progressToken"), QStringLiteral("p-7")}}}});
    const auto progress = [&f] {
        QList<double> values;
        for (const QJsonObject &message : f.written()) {
            if (message.value(QLatin1String("method")) == QLatin1String("notifications/progress")) {
                const QJsonObject params = message.value(QLatin1String("params")).toObject();
                if (params.value(QLatin1String("progressToken")) == QLatin1String("p-7"))
                    values << params.value(QLatin1String("progress")).toDouble();
            }
        }
        return values;
    };
    QVERIFY(QTest::qWaitFor([&] { return progress().size() >= 3; }, 5000));
    const QList<double> values = progress();
    for (qsizetype i = 1; i < values.size(); ++i)
        QVERIFY(values.at(i) > values.at(i - 1)); // it only increases
    // Declined: answered, and no progress after the answer.
    const QJsonObject ask = f.lastRequest(QStringLiteral("elicitation/create"));
    f.send(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                       {QStringLiteral("id"), ask.value(QLatin1String("id"))},
                       {QStringLiteral("result"),
                        QJsonObject{{QStringLiteral("action"), QStringLiteral("decline")}}}});
    QVERIFY(QTest::qWaitFor([&f] { return !f.answerTo(7).isEmpty(); }, 5000));
    const qsizetype after = progress().size();
    QTest::qWait(200);
    QCOMPARE(progress().size(), after);
    // Without a token, nothing is reported.
    f.call(8, AgentTools::kAct,
           QJsonObject{{QStringLiteral("kind"), QStringLiteral("click")},
                       {QStringLiteral("expected_revision"), seen.revision},
                       {QStringLiteral("ref"), seen.elements.first().ref}});
    QTest::qWait(200);
    QCOMPARE(progress().size(), after);
    int others = 0;
    for (const QJsonObject &message : f.written())
        others += message.value(QLatin1String("method")).toString() ==
                      QLatin1String("notifications/progress") &&
                  message.value(QLatin1String("params"))
                          .toObject()
                          .value(QLatin1String("progressToken"))
                          .toString() != QLatin1String("p-7");
    QCOMPARE(others, 0);
}

void TestMcpServer::actInvalidArguments_data()
{
    QTest::addColumn<QJsonObject>("arguments");
    QTest::newRow("empty") << QJsonObject();
    QTest::newRow("unknown kind") << act(
        R"({"kind":"hover","expected_revision":"r1","ref":"a.1"})");
    QTest::newRow("no ref") << act(R"({"kind":"click","expected_revision":"r1"})");
    QTest::newRow("no revision") << act(R"({"kind":"click","ref":"a.1"})");
    QTest::newRow("empty ref") << act(R"({"kind":"click","expected_revision":"r1","ref":""})");
    QTest::newRow("unknown field")
        << act(R"({"kind":"click","expected_revision":"r1","ref":"a.1","force":true})");
    QTest::newRow("field of another kind")
        << act(R"({"kind":"click","expected_revision":"r1","ref":"a.1","text":"x"})");
    QTest::newRow("type without text")
        << act(R"({"kind":"type","expected_revision":"r1","ref":"a.1"})");
    QTest::newRow("text too long")
        << QJsonObject{{QStringLiteral("kind"), QStringLiteral("type")},
                       {QStringLiteral("expected_revision"), QStringLiteral("r1")},
                       {QStringLiteral("ref"), QStringLiteral("a.1")},
                       {QStringLiteral("text"), QString(4097, QLatin1Char('a'))}};
    QTest::newRow("check string") << act(
        R"({"kind":"check","expected_revision":"r1","ref":"a.1","checked":"yes"})");
    QTest::newRow("unknown key") << act(
        R"({"kind":"press","expected_revision":"r1","ref":"a.1","key":"F1"})");
    QTest::newRow("modifier") << act(
        R"({"kind":"press","expected_revision":"r1","ref":"a.1","key":"Control+a"})");
    QTest::newRow("scroll zero") << act(
        R"({"kind":"scroll","expected_revision":"r1","ref":"a.1","delta":0})");
    QTest::newRow("scroll over") << act(
        R"({"kind":"scroll","expected_revision":"r1","ref":"a.1","delta":2001})");
    QTest::newRow("scroll fraction")
        << act(R"({"kind":"scroll","expected_revision":"r1","ref":"a.1","delta":1.5})");
    QTest::newRow("bad postcondition") << act(
        R"({"kind":"click","expected_revision":"r1","ref":"a.1","postcondition":{"role":"x"}})");
    QTest::newRow("kind number") << act(R"({"kind":1,"expected_revision":"r1","ref":"a.1"})");
}

void TestMcpServer::actInvalidArguments()
{
    QFETCH(QJsonObject, arguments);
    Fixture f;
    f.call(1, AgentTools::kAct, arguments);
    QCOMPARE(Fixture::toolErrorCode(f.answerTo(1)), QStringLiteral("tool.invalid_arguments"));
    QVERIFY(!AgentTools::checkActArguments(arguments));
    QCOMPARE(f.providersCreated, 0);

    // Bounds are code points: 4,096 astral characters are within them.
    QString emoji;
    for (int i = 0; i < 4096; ++i)
        emoji.append(QString::fromUcs4(U"\U0001F600", 1));
    QVERIFY(AgentTools::checkActArguments(
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("type")},
                    {QStringLiteral("expected_revision"), QStringLiteral("r")},
                    {QStringLiteral("ref"), QStringLiteral("a")},
                    {QStringLiteral("text"), emoji}}));
}

void TestMcpServer::cancelledCallNeverAnswers()
{
    Fixture f;
    f.call(1, AgentTools::kNavigate,
           QJsonObject{{QStringLiteral("url"), QStringLiteral("https://shop.acme-store.com/")}});
    QCOMPARE(f.server->callsInFlight(), 1);
    f.notify(QStringLiteral("notifications/cancelled"),
             QJsonObject{{QStringLiteral("requestId"), 1},
                         {QStringLiteral("reason"), QStringLiteral("user")}});
    QCOMPARE(f.server->callsInFlight(), 0);
    // The next call is served; then the provider finishes the cancelled one late.
    f.call(2, AgentTools::kObserve, QJsonObject());
    const BrowserObservation stale = observation(1, QStringLiteral("STALE-CANARY"));
    const BrowserObservation fresh = observation(1, QStringLiteral("FRESH"));
    f.provider->answer(0, stale);
    f.provider->answer(0, fresh);
    QVERIFY(f.answerTo(1).isEmpty());
    QVERIFY(!f.output.data().contains("STALE-CANARY"));
    QCOMPARE(Fixture::text(f.answerTo(2)).toUtf8(), ModelProjection::project(fresh));
    // The same id may be used again once it is no longer in flight.
    f.call(1, AgentTools::kObserve, QJsonObject());
    f.provider->answer(0, fresh);
    QVERIFY(!Fixture::isError(f.answerTo(1)));
}

void TestMcpServer::cancellingUnknownOrFinishedCallsChangesNothing()
{
    Fixture f;
    f.call(1, AgentTools::kObserve, QJsonObject());
    f.provider->answer(0, observation());
    const QByteArray before = f.output.data();
    f.notify(QStringLiteral("notifications/cancelled"),
             QJsonObject{{QStringLiteral("requestId"), 1}});
    f.notify(QStringLiteral("notifications/cancelled"),
             QJsonObject{{QStringLiteral("requestId"), 77}});
    f.notify(QStringLiteral("notifications/cancelled"),
             QJsonObject{{QStringLiteral("requestId"), QJsonObject()}});
    f.notify(QStringLiteral("notifications/cancelled"));
    QCOMPARE(f.output.data(), before);
    // "1" is not 1.
    f.call(2, AgentTools::kObserve, QJsonObject());
    f.notify(QStringLiteral("notifications/cancelled"),
             QJsonObject{{QStringLiteral("requestId"), QStringLiteral("2")}});
    f.provider->answer(0, observation());
    QVERIFY(!Fixture::isError(f.answerTo(2)));
}

void TestMcpServer::duplicateIdInFlightIsRefused()
{
    Fixture f;
    f.call(1, AgentTools::kObserve, QJsonObject());
    f.call(1, AgentTools::kObserve, QJsonObject());
    QCOMPARE(Fixture::errorCode(f.answerTo(1)), JsonRpcErrorCode::kInvalidRequest);
    QCOMPARE(f.provider->held.size(), 1);
}

void TestMcpServer::endOfInputStopsServingAndClosesTheProvider()
{
    Fixture f;
    QSignalSpy finished(f.server.get(), &McpServer::finished);
    f.call(1, AgentTools::kObserve, QJsonObject());
    f.server->channel().finishInput();
    QCOMPARE(finished.size(), 1);
    QVERIFY(f.provider->closed);
    QVERIFY(f.answerTo(1).isEmpty());
    QVERIFY(f.output.data().isEmpty());

    Fixture idle(false);
    QSignalSpy idleFinished(idle.server.get(), &McpServer::finished);
    idle.server->channel().finishInput();
    QCOMPARE(idleFinished.size(), 1);
    QCOMPARE(idle.providersCreated, 0);
}

void TestMcpServer::serverToClientRequestsRouteThroughTheChannel()
{
    // What elicitation needs: a server request goes out with its own id while a client call is
    // in flight, and the client's answer reaches the server's callback, not the tool handler.
    Fixture f;
    f.call(1, AgentTools::kObserve, QJsonObject());
    std::optional<JsonRpcReply> reply;
    const QJsonValue id = f.server->channel().sendRequest(
        QStringLiteral("elicitation/create"),
        QJsonObject{{QStringLiteral("message"), QStringLiteral("Approve?")}},
        [&reply](const JsonRpcReply &r) { reply = r; });
    f.send(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                       {QStringLiteral("id"), id},
                       {QStringLiteral("result"),
                        QJsonObject{{QStringLiteral("action"), QStringLiteral("decline")}}}});
    QVERIFY(reply && reply->ok);
    QCOMPARE(reply->result.toObject().value(QLatin1String("action")).toString(),
             QStringLiteral("decline"));
    QCOMPARE(f.server->callsInFlight(), 1);
    f.provider->answer(0, observation());
    QVERIFY(!Fixture::isError(f.answerTo(1)));

    // A request still pending when the server goes away is answered once, as closed.
    std::optional<JsonRpcReply> pending;
    f.server->channel().sendRequest(QStringLiteral("elicitation/create"), QJsonObject(),
                                    [&pending](const JsonRpcReply &r) { pending = r; });
    QVERIFY(!pending);
    f.server.reset();
    QVERIFY(pending && !pending->ok);
    QCOMPARE(pending->errorCode, JsonRpcErrorCode::kConnectionClosed);
}

QTEST_GUILESS_MAIN(TestMcpServer)
#include "tst_mcpserver.moc"
