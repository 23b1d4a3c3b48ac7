// The tool registry (default off; only declared capabilities; each browser tool's fixed
// classification; closed schemas that accept exactly what the argument parsers accept) and
// deterministic policy (reads allowed through a bound provider, act needs approval, the owner's
// bounded scroll permission).

#include "domain/action/ActRequest.h"
#include "domain/observation/ObserveRequest.h"
#include "policy/ActAuthority.h"
#include "tools/ToolPolicy.h"
#include "tools/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTest>

#include <functional>

using namespace veetbot;

namespace {

// A JSON Schema checker for the keywords the registry uses. Anything it does not know makes
// it fail, so the schemas cannot grow a keyword this test silently ignores.
class SchemaChecker
{
public:
    bool accepts(const QJsonObject &schema, const QJsonValue &value)
    {
        static const QStringList known{
            "type",      "properties", "required", "additionalProperties",
            "oneOf",     "enum",       "const",    "minLength",
            "maxLength", "minimum",    "maximum",  "items",
            "minItems",  "maxItems",   "not"};
        for (auto it = schema.constBegin(); it != schema.constEnd(); ++it) {
            if (!known.contains(it.key())) {
                unknownKeyword = it.key();
                return false;
            }
        }
        const QString type = schema.value(QLatin1String("type")).toString();
        if (type == QLatin1String("object") && !value.isObject())
            return false;
        if (type == QLatin1String("string") && !value.isString())
            return false;
        if (type == QLatin1String("boolean") && !value.isBool())
            return false;
        if (type == QLatin1String("array") && !value.isArray())
            return false;
        if (type == QLatin1String("integer") &&
            (!value.isDouble() || value.toDouble() != std::floor(value.toDouble())))
            return false;
        if (schema.contains(QLatin1String("const")) &&
            schema.value(QLatin1String("const")) != value)
            return false;
        if (schema.contains(QLatin1String("enum")) &&
            !schema.value(QLatin1String("enum")).toArray().contains(value))
            return false;
        if (schema.contains(QLatin1String("not")) &&
            accepts(schema.value(QLatin1String("not")).toObject(), value))
            return false;
        if (value.isString()) {
            const qsizetype codePoints = value.toString().toUcs4().size();
            if (schema.contains(QLatin1String("minLength")) &&
                codePoints < schema.value(QLatin1String("minLength")).toInteger())
                return false;
            if (schema.contains(QLatin1String("maxLength")) &&
                codePoints > schema.value(QLatin1String("maxLength")).toInteger())
                return false;
        }
        if (value.isDouble()) {
            if (schema.contains(QLatin1String("minimum")) &&
                value.toDouble() < schema.value(QLatin1String("minimum")).toDouble())
                return false;
            if (schema.contains(QLatin1String("maximum")) &&
                value.toDouble() > schema.value(QLatin1String("maximum")).toDouble())
                return false;
        }
        if (value.isArray()) {
            const QJsonArray array = value.toArray();
            if (schema.contains(QLatin1String("minItems")) &&
                array.size() < schema.value(QLatin1String("minItems")).toInteger())
                return false;
            if (schema.contains(QLatin1String("maxItems")) &&
                array.size() > schema.value(QLatin1String("maxItems")).toInteger())
                return false;
            if (schema.contains(QLatin1String("items"))) {
                for (const QJsonValue &item : array) {
                    if (!accepts(schema.value(QLatin1String("items")).toObject(), item))
                        return false;
                }
            }
        }
        if (value.isObject()) {
            const QJsonObject object = value.toObject();
            const QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
            for (const QJsonValue &name : schema.value(QLatin1String("required")).toArray()) {
                if (!object.contains(name.toString()))
                    return false;
            }
            for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
                if (properties.contains(it.key())) {
                    if (!accepts(properties.value(it.key()).toObject(), it.value()))
                        return false;
                } else if (schema.value(QLatin1String("additionalProperties")) ==
                           QJsonValue(false)) {
                    return false;
                }
            }
        }
        if (schema.contains(QLatin1String("oneOf"))) {
            int matches = 0;
            for (const QJsonValue &alternative : schema.value(QLatin1String("oneOf")).toArray())
                matches += accepts(alternative.toObject(), value) ? 1 : 0;
            if (matches != 1)
                return false;
        }
        return true;
    }

    QString unknownKeyword;
};

QJsonObject object(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        qFatal("test JSON does not parse");
    return document.object();
}

ProviderCapabilities allCapabilities()
{
    ProviderCapabilities capabilities;
    capabilities.navigate = capabilities.observe = capabilities.expand = capabilities.extract =
        capabilities.act = true;
    return capabilities;
}

// Argument objects around every bound of both parsers, valid and invalid.
QList<QByteArray> observeCorpus()
{
    const QByteArray cursor32(32, 'c');
    const QByteArray extract =
        "\"extract\":{\"revision\":\"r\",\"kind\":\"table\",\"index\":0,\"limit\":5,"
        "\"columns\":[{\"name\":\"price\",\"type\":\"number\",\"required\":true}]}";
    return {
        "{}",
        "{\"after\":\"e1\"}",
        "{\"after\":\"\"}",
        "{\"after\":\"" + QByteArray(128, 'a') + "\"}",
        "{\"after\":\"" + QByteArray(129, 'a') + "\"}",
        "{\"after\":5}",
        "{\"cursor\":\"" + cursor32 + "\"}",
        "{\"cursor\":\"" + QByteArray(31, 'c') + "\"}",
        "{\"cursor\":\"" + QByteArray(129, 'c') + "\"}",
        "{\"after\":\"e1\",\"cursor\":\"" + cursor32 + "\"}",
        "{\"wait_for\":{\"role\":\"button\",\"name\":\"Go\"}}",
        "{\"wait_for\":{\"role\":\"button\",\"name\":\"Go\",\"timeout_ms\":5000,\"checked\":false,"
        "\"disabled\":true}}",
        "{\"wait_for\":{\"role\":\"button\",\"name\":\"Go\",\"timeout_ms\":5001}}",
        "{\"wait_for\":{\"role\":\"\",\"name\":\"Go\"}}",
        "{\"wait_for\":{\"role\":\"button\"}}",
        "{\"wait_for\":{\"role\":\"button\",\"name\":\"Go\",\"x\":1}}",
        "{\"wait_for\":{\"role\":\"button\",\"name\":\"Go\"},\"after\":\"e1\"}",
        "{" + extract + "}",
        "{\"extract\":{\"revision\":\"r\",\"kind\":\"chart\",\"index\":0,\"limit\":5,"
        "\"columns\":[{\"name\":\"p\",\"type\":\"number\"}]}}",
        "{\"extract\":{\"revision\":\"r\",\"kind\":\"list\",\"index\":16,\"limit\":5,"
        "\"columns\":[{\"name\":\"p\",\"type\":\"number\"}]}}",
        "{\"extract\":{\"revision\":\"r\",\"kind\":\"list\",\"index\":0,\"limit\":51,"
        "\"columns\":[{\"name\":\"p\",\"type\":\"number\"}]}}",
        "{\"extract\":{\"revision\":\"r\",\"kind\":\"list\",\"index\":0,\"limit\":1,"
        "\"columns\":[]}}",
        "{\"extract\":{\"revision\":\"r\",\"kind\":\"form\",\"index\":15,\"limit\":50,"
        "\"columns\":[{\"name\":\"p\",\"type\":\"date\"}]}}",
        "{\"region_ref\":\"g1\",\"expected_revision\":\"r\"}",
        "{\"region_ref\":\"g1\",\"expected_revision\":\"r\",\"text_offset\":262144}",
        "{\"region_ref\":\"g1\",\"expected_revision\":\"r\",\"text_offset\":262145}",
        "{\"region_ref\":\"g1\"}",
        "{\"region_ref\":\"g1\",\"expected_revision\":\"r\",\"after\":\"e1\"}",
        "{\"selector\":\"#x\"}",
    };
}

QList<QByteArray> actCorpus()
{
    const QByteArray common = "\"expected_revision\":\"r\",\"ref\":\"e1\"";
    const auto act = [&](const QByteArray &rest) -> QByteArray {
        return "{" + common + "," + rest + "}";
    };
    QList<QByteArray> corpus{
        act("\"kind\":\"click\""),
        act("\"kind\":\"click\",\"postcondition\":{\"role\":\"status\",\"name\":\"Saved\"}"),
        act("\"kind\":\"click\",\"postcondition\":{\"role\":\"status\"}"),
        act("\"kind\":\"click\",\"text\":\"x\""),
        act("\"kind\":\"hover\""),
        act("\"kind\":\"type\",\"text\":\"\""),
        act("\"kind\":\"type\",\"text\":\"" + QByteArray(4096, 't') + "\""),
        act("\"kind\":\"type\",\"text\":\"" + QByteArray(4097, 't') + "\""),
        act("\"kind\":\"type\""),
        act("\"kind\":\"type\",\"text\":1"),
        act("\"kind\":\"select\",\"option\":\"Blue\""),
        act("\"kind\":\"select\",\"option\":\"" + QByteArray(1024, 'o') + "\""),
        act("\"kind\":\"select\",\"option\":\"" + QByteArray(1025, 'o') + "\""),
        act("\"kind\":\"select\",\"option\":\"a\",\"key\":\"Tab\""),
        act("\"kind\":\"check\",\"checked\":true"),
        act("\"kind\":\"check\",\"checked\":0"),
        act("\"kind\":\"press\",\"key\":\"ArrowLeft\""),
        act("\"kind\":\"press\",\"key\":\"arrowleft\""),
        act("\"kind\":\"press\",\"key\":\"Meta\""),
        act("\"kind\":\"scroll\",\"delta\":1"),
        act("\"kind\":\"scroll\",\"delta\":-2000"),
        act("\"kind\":\"scroll\",\"delta\":0"),
        act("\"kind\":\"scroll\",\"delta\":2001"),
        act("\"kind\":\"scroll\",\"delta\":12.5"),
        act("\"kind\":\"scroll\",\"delta\":\"3\""),
        "{\"kind\":\"click\",\"ref\":\"e1\"}",
        "{\"kind\":\"click\",\"expected_revision\":\"r\",\"ref\":\"" + QByteArray(129, 'e') + "\"}",
        "{\"kind\":\"click\",\"expected_revision\":\"\",\"ref\":\"e1\"}",
        "{}",
    };
    for (ActRequest::Key key : kAllActKeys)
        corpus.append(act("\"kind\":\"press\",\"key\":\"" + actKeyString(key).toLatin1() + "\""));
    return corpus;
}

ToolDescriptor descriptor(const ToolRegistry &registry, QLatin1String name)
{
    const ToolDescriptor *tool = registry.find(name);
    if (!tool)
        qFatal("tool missing");
    return *tool;
}

class FixedProvider final : public BrowserProvider
{
public:
    explicit FixedProvider(ProviderCapabilities capabilities) : m_capabilities(capabilities) {}
    ProviderCapabilities capabilities() const override { return m_capabilities; }
    void navigate(const NavigateRequest &, ObservationCallback) override { ++calls; }
    void observe(const ObserveRequest &, ObservationCallback) override { ++calls; }
    void act(const ActRequest &, ObservationCallback) override { ++calls; }
    void close() override { ++calls; }
    int calls = 0;

private:
    ProviderCapabilities m_capabilities;
};

} // namespace

class TestToolRegistry : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ordinaryInteractionNeedsEveryCondition();
    void noProviderNoBrowserTool();
    void providerRegistersOnlyDeclaredTools();
    void classificationsFollowTheSpecification();
    void observeSchemaAcceptsExactlyWhatTheParserAccepts();
    void observeSchemaFollowsCapabilities();
    void actSchemaAcceptsExactlyWhatTheParserAccepts();
    void schemasAreClosed();
    void policyAllowsReadsOnlyThroughABoundProvider();
    void policyRequiresApprovalForEveryAct();
    void policyBoundedScroll_data();
    void policyBoundedScroll();
    void policyDeniesMisclassifiedOrUnknownTools();
    void policyVersionFollowsEverySetting();
};

void TestToolRegistry::noProviderNoBrowserTool()
{
    const ToolRegistry none;
    QVERIFY(none.tools().isEmpty());
    QVERIFY(!none.hasBoundProvider());
    QCOMPARE(none.find(QStringLiteral("browser.observe")), nullptr);
    const ToolRegistry nullProvider = ToolRegistry::forProvider(nullptr);
    QVERIFY(nullProvider.tools().isEmpty());
    QVERIFY(!nullProvider.hasBoundProvider());
}

void TestToolRegistry::providerRegistersOnlyDeclaredTools()
{
    // Today's providers: navigate and observe, no act.
    ProviderCapabilities readOnly;
    readOnly.navigate = readOnly.observe = readOnly.expand = readOnly.extract = true;
    FixedProvider provider(readOnly);
    const ToolRegistry registry = ToolRegistry::forProvider(&provider);
    QVERIFY(registry.hasBoundProvider());
    QStringList names;
    for (const ToolDescriptor &tool : registry.tools())
        names << tool.name;
    QCOMPARE(names, QStringList({"browser.navigate", "browser.observe"}));
    QCOMPARE(registry.find(QStringLiteral("browser.act")), nullptr);
    QCOMPARE(provider.calls, 0); // composition reads capabilities only

    const ToolRegistry all = ToolRegistry::forCapabilities(allCapabilities());
    names.clear();
    for (const ToolDescriptor &tool : all.tools()) {
        names << tool.name;
        QCOMPARE(tool.version, QStringLiteral("1.7.0"));
    }
    QCOMPARE(names, QStringList({"browser.navigate", "browser.observe", "browser.act"}));

    ProviderCapabilities actOnly;
    actOnly.act = true;
    QCOMPARE(ToolRegistry::forCapabilities(actOnly).tools().size(), 1);
    QVERIFY(ToolRegistry::forCapabilities(ProviderCapabilities()).tools().isEmpty());
}

void TestToolRegistry::classificationsFollowTheSpecification()
{
    const ToolRegistry registry = ToolRegistry::forCapabilities(allCapabilities());
    const auto words = [&](QLatin1String name) {
        const ToolClassification c = descriptor(registry, name).classification;
        return QStringList{sideEffectString(c.sideEffect), riskString(c.risk),
                           idempotencyString(c.idempotency)};
    };
    QCOMPARE(words(BrowserTools::kNavigate), QStringList({"NETWORK_READ", "LOW", "READ_ONLY"}));
    QCOMPARE(words(BrowserTools::kObserve), QStringList({"NETWORK_READ", "LOW", "READ_ONLY"}));
    QCOMPARE(words(BrowserTools::kAct), QStringList({"EXTERNAL_WRITE", "HIGH", "NON_IDEMPOTENT"}));
    QVERIFY(!BrowserTools::specifiedClassification(QStringLiteral("browser.upload")));
}

void TestToolRegistry::observeSchemaAcceptsExactlyWhatTheParserAccepts()
{
    const QJsonObject schema = BrowserTools::observeSchema(allCapabilities());
    SchemaChecker checker;
    int accepted = 0;
    for (const QByteArray &json : observeCorpus()) {
        const bool parser = ObserveRequest::fromJson(object(json)).ok();
        const bool bySchema = checker.accepts(schema, object(json));
        QVERIFY2(checker.unknownKeyword.isEmpty(), qPrintable(checker.unknownKeyword));
        QVERIFY2(parser == bySchema, json.constData());
        accepted += parser ? 1 : 0;
    }
    QVERIFY(accepted >= 8); // the corpus exercises both sides
}

void TestToolRegistry::observeSchemaFollowsCapabilities()
{
    ProviderCapabilities plain;
    plain.navigate = plain.observe = true;
    const QJsonObject schema = BrowserTools::observeSchema(plain);
    SchemaChecker checker;
    QVERIFY(checker.accepts(schema, QJsonObject()));
    QVERIFY(
        checker.accepts(schema, object("{\"wait_for\":{\"role\":\"button\",\"name\":\"Go\"}}")));
    QVERIFY(!checker.accepts(schema, object("{\"after\":\"e1\"}")));
    QVERIFY(!checker.accepts(schema, object("{\"cursor\":\"" + QByteArray(40, 'c') + "\"}")));
    QVERIFY(!checker.accepts(
        schema,
        object("{\"extract\":{\"revision\":\"r\",\"kind\":\"table\",\"index\":0,\"limit\":5,"
               "\"columns\":[{\"name\":\"p\",\"type\":\"number\"}]}}")));
    const QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
    QVERIFY(!properties.contains(QLatin1String("after")));
    QVERIFY(!properties.contains(QLatin1String("extract")));
}

void TestToolRegistry::actSchemaAcceptsExactlyWhatTheParserAccepts()
{
    const QJsonObject schema = BrowserTools::actSchema();
    SchemaChecker checker;
    int accepted = 0;
    for (const QByteArray &json : actCorpus()) {
        const bool parser = ActRequest::fromJson(object(json)).ok();
        const bool bySchema = checker.accepts(schema, object(json));
        QVERIFY2(checker.unknownKeyword.isEmpty(), qPrintable(checker.unknownKeyword));
        QVERIFY2(parser == bySchema, json.constData());
        accepted += parser ? 1 : 0;
    }
    QVERIFY(accepted >= 20);
}

void TestToolRegistry::schemasAreClosed()
{
    SchemaChecker checker;
    QVERIFY(checker.accepts(BrowserTools::navigateSchema(),
                            object("{\"url\":\"https://a.example/\"}")));
    QVERIFY(!checker.accepts(BrowserTools::navigateSchema(),
                             object("{\"url\":\"https://a.example/\",\"profile\":\"p\"}")));
    QVERIFY(!checker.accepts(BrowserTools::navigateSchema(), QJsonObject()));
    for (const QJsonObject &schema :
         {BrowserTools::navigateSchema(), BrowserTools::observeSchema(allCapabilities()),
          BrowserTools::actSchema()}) {
        QCOMPARE(schema.value(QLatin1String("type")).toString(), QStringLiteral("object"));
        QCOMPARE(schema.value(QLatin1String("additionalProperties")), QJsonValue(false));
    }
}

void TestToolRegistry::policyAllowsReadsOnlyThroughABoundProvider()
{
    const ToolRegistry registry = ToolRegistry::forCapabilities(allCapabilities());
    PolicyContext bound;
    bound.providerBound = true;
    for (QLatin1String name : {BrowserTools::kNavigate, BrowserTools::kObserve}) {
        QCOMPARE(
            ToolPolicy::decide(descriptor(registry, name), QJsonObject(), PolicySettings(), bound),
            PolicyDecision::Allow);
        QCOMPARE(ToolPolicy::decide(descriptor(registry, name), QJsonObject(), PolicySettings(),
                                    PolicyContext()),
                 PolicyDecision::Deny);
    }
}

void TestToolRegistry::policyRequiresApprovalForEveryAct()
{
    const ToolDescriptor act =
        descriptor(ToolRegistry::forCapabilities(allCapabilities()), BrowserTools::kAct);
    PolicyContext context{true, true, TurnSource::Owner};
    PolicySettings scrollAllowed{true};
    for (const QByteArray &json : actCorpus()) {
        const Result<ActRequest> request = ActRequest::fromJson(object(json));
        const PolicyDecision decision =
            ToolPolicy::decide(act, object(json), scrollAllowed, context);
        if (!request) {
            QCOMPARE(decision, PolicyDecision::Deny);
        } else if (request->kind() != ActRequest::Kind::Scroll) {
            QCOMPARE(decision, PolicyDecision::RequireApproval);
        }
        // Without the permission every valid act, scroll included, needs approval.
        if (request)
            QCOMPARE(ToolPolicy::decide(act, object(json), PolicySettings(), context),
                     PolicyDecision::RequireApproval);
    }
    QCOMPARE(ToolPolicy::decide(act,
                                object("{\"kind\":\"click\",\"expected_revision\":\"r\","
                                       "\"ref\":\"e\"}"),
                                PolicySettings(), PolicyContext()),
             PolicyDecision::Deny);
}

void TestToolRegistry::policyBoundedScroll_data()
{
    QTest::addColumn<QByteArray>("arguments");
    QTest::addColumn<bool>("allowScroll");
    QTest::addColumn<bool>("isolated");
    QTest::addColumn<int>("turn");
    QTest::addColumn<int>("decision");
    const QByteArray scroll =
        "{\"kind\":\"scroll\",\"expected_revision\":\"r\",\"ref\":\"e\",\"delta\":400}";
    const int owner = int(TurnSource::Owner), schedule = int(TurnSource::Schedule),
              untrusted = int(TurnSource::UntrustedContent);
    const int allow = int(PolicyDecision::Allow), approve = int(PolicyDecision::RequireApproval),
              deny = int(PolicyDecision::Deny);
    QTest::newRow("owner, permission, isolated") << scroll << true << true << owner << allow;
    QTest::newRow("scheduled task") << scroll << true << true << schedule << allow;
    QTest::newRow("up 2000")
        << QByteArray(
               "{\"kind\":\"scroll\",\"expected_revision\":\"r\",\"ref\":\"e\",\"delta\":-2000}")
        << true << true << owner << allow;
    QTest::newRow("with postcondition")
        << QByteArray("{\"kind\":\"scroll\",\"expected_revision\":\"r\",\"ref\":\"e\",\"delta\":9,"
                      "\"postcondition\":{\"role\":\"button\",\"name\":\"More\"}}")
        << true << true << owner << allow;
    QTest::newRow("permission off") << scroll << false << true << owner << approve;
    QTest::newRow("in-process provider") << scroll << true << false << owner << approve;
    QTest::newRow("turn opened by untrusted content")
        << scroll << true << true << untrusted << approve;
    QTest::newRow("click is not a scroll")
        << QByteArray("{\"kind\":\"click\",\"expected_revision\":\"r\",\"ref\":\"e\"}") << true
        << true << owner << approve;
    QTest::newRow("press PageDown is not a scroll")
        << QByteArray("{\"kind\":\"press\",\"expected_revision\":\"r\",\"ref\":\"e\",\"key\":"
                      "\"PageDown\"}")
        << true << true << owner << approve;
    QTest::newRow("unknown field") << QByteArray("{\"kind\":\"scroll\",\"expected_revision\":\"r\","
                                                 "\"ref\":\"e\",\"delta\":4,\"x\":1}")
                                   << true << true << owner << deny;
    QTest::newRow("delta 2001")
        << QByteArray(
               "{\"kind\":\"scroll\",\"expected_revision\":\"r\",\"ref\":\"e\",\"delta\":2001}")
        << true << true << owner << deny;
    QTest::newRow("delta 0")
        << QByteArray("{\"kind\":\"scroll\",\"expected_revision\":\"r\",\"ref\":\"e\",\"delta\":0}")
        << true << true << owner << deny;
}

void TestToolRegistry::policyBoundedScroll()
{
    QFETCH(QByteArray, arguments);
    QFETCH(bool, allowScroll);
    QFETCH(bool, isolated);
    QFETCH(int, turn);
    QFETCH(int, decision);
    const ToolDescriptor act =
        descriptor(ToolRegistry::forCapabilities(allCapabilities()), BrowserTools::kAct);
    const PolicyContext context{true, isolated, TurnSource(turn)};
    QCOMPARE(int(ToolPolicy::decide(act, object(arguments), PolicySettings{allowScroll}, context)),
             decision);
}

void TestToolRegistry::policyDeniesMisclassifiedOrUnknownTools()
{
    const ToolRegistry registry = ToolRegistry::forCapabilities(allCapabilities());
    const PolicyContext context{true, true, TurnSource::Owner};
    const QJsonObject scroll =
        object("{\"kind\":\"scroll\",\"expected_revision\":\"r\",\"ref\":\"e\",\"delta\":4}");

    ToolDescriptor act = descriptor(registry, BrowserTools::kAct);
    act.classification.sideEffect = SideEffect::NetworkRead; // a classification mismatch
    QCOMPARE(ToolPolicy::decide(act, scroll, PolicySettings{true}, context), PolicyDecision::Deny);

    ToolDescriptor oldAct = descriptor(registry, BrowserTools::kAct);
    oldAct.version = QStringLiteral("1.6.0");
    QCOMPARE(ToolPolicy::decide(oldAct, scroll, PolicySettings{true}, context),
             PolicyDecision::Deny);

    ToolDescriptor observe = descriptor(registry, BrowserTools::kObserve);
    observe.classification.risk = Risk::High;
    QCOMPARE(ToolPolicy::decide(observe, QJsonObject(), PolicySettings(), context),
             PolicyDecision::Deny);

    ToolDescriptor upload = descriptor(registry, BrowserTools::kAct);
    upload.name = QStringLiteral("browser.upload");
    QCOMPARE(ToolPolicy::decide(upload, scroll, PolicySettings{true}, context),
             PolicyDecision::Deny);
}

void TestToolRegistry::ordinaryInteractionNeedsEveryCondition()
{
    // The owner's setting, a bound isolated provider serving a READY profile, and a turn the
    // owner opened: each alone withholds it.
    for (int mask = 0; mask < 32; ++mask) {
        PolicySettings settings;
        settings.ordinaryInteraction = mask & 1;
        PolicyContext context;
        context.providerBound = mask & 2;
        context.isolatedProvider = mask & 4;
        context.readyProfile = mask & 8;
        context.turn = (mask & 16) ? TurnSource::Owner : TurnSource::UntrustedContent;
        QCOMPARE(ActAuthority::allowsOrdinaryInteraction(settings, context), mask == 31);
    }
    // A schedule's occurrence (the scheduler's seed) may interact ordinarily; it never uses a
    // task grant.
    PolicyContext scheduled{true, true, TurnSource::Schedule, true};
    QVERIFY(ActAuthority::allowsOrdinaryInteraction(PolicySettings{}, scheduled));
    QVERIFY(!ActAuthority::allowsTaskGrants(PolicySettings{}, scheduled));
    scheduled.readyProfile = false;
    QVERIFY(!ActAuthority::allowsOrdinaryInteraction(PolicySettings{}, scheduled));
    // On unless turned off.
    QVERIFY(PolicySettings{}.ordinaryInteraction);
}

void TestToolRegistry::policyVersionFollowsEverySetting()
{
    // Each setting moves the version; equal settings give the same one.
    QSet<QString> versions;
    for (int mask = 0; mask < 8; ++mask) {
        PolicySettings settings;
        settings.allowScroll = mask & 1;
        settings.ordinaryInteraction = mask & 2;
        settings.taskGrants = mask & 4;
        const QString version = settings.version();
        QCOMPARE(version.size(), 64);
        QCOMPARE(version, PolicySettings(settings).version());
        versions.insert(version);
    }
    QCOMPARE(versions.size(), 8);
    QVERIFY(PolicySettings{}.taskGrants);
}

QTEST_GUILESS_MAIN(TestToolRegistry)
#include "tst_toolregistry.moc"
