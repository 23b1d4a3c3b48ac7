// The canonical observation's strict validation: what a provider or the browser host hands
// back is checked before it enters a tool result.

#include "domain/observation/BrowserObservation.h"
#include "domain/web/TestOverrides.h"
#include "isolation/HostProtocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTest>

using namespace veetbot;

class TestObservation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip();
    void regionsFocusAndWaitRoundTrip();
    void actionOutcomeIsStrict();
    void regionFieldsAreStrict_data();
    void regionFieldsAreStrict();
    void revisionsAreRandomAndLong();
    void rejects_data();
    void rejects();
    void boundsAreEnforced();
    void hostProtocolValidatesResponses();
    void hostProtocolCarriesPageEvidenceBesideTheObservation();
    void hostProtocolRequestsAreStrict();
    void hostProtocolCarriesTheOwnersView();
    void hostProtocolCarriesElementFactsBesideTheObservation();

private:
    static BrowserObservation sample();
    static BrowserObservation structuredSample();
};

BrowserObservation TestObservation::sample()
{
    BrowserObservation observation;
    observation.url =
        QUrl(QStringLiteral("https://shop.acme-store.com/cart?x=1"), QUrl::StrictMode);
    observation.title = QStringLiteral("Cart");
    observation.revision = newRevision();
    observation.readiness = Readiness::DomQuiet;
    observation.text = QStringLiteral("Your cart\nTotal 3");
    observation.textCoverage.scannedNodes = 12;
    observation.textCoverage.scannedTextUnits = 40;
    ElementRecord button;
    button.ref = QStringLiteral("abc.0");
    button.role = QStringLiteral("button");
    button.name = QStringLiteral("Check out");
    ElementRecord box;
    box.ref = QStringLiteral("abc.1");
    box.role = QStringLiteral("checkbox");
    box.name = QStringLiteral("Gift");
    box.state.checked = CheckedState::Mixed;
    box.state.required = true;
    observation.elements = {button, box};
    observation.coverage.scannedCandidates = 2;
    return observation;
}

void TestObservation::roundTrip()
{
    const BrowserObservation observation = sample();
    const auto parsed = BrowserObservation::fromJson(observation.toJson(), TestOverrides());
    QVERIFY(parsed.ok());
    QCOMPARE(parsed.value(), observation);
    QCOMPARE(observation.toJson().value(QStringLiteral("readiness")).toString(),
             QStringLiteral("dom_quiet"));
    QCOMPARE(observation.toJson()
                 .value(QStringLiteral("elements"))
                 .toArray()
                 .at(1)
                 .toObject()
                 .value(QStringLiteral("state"))
                 .toObject()
                 .value(QStringLiteral("checked"))
                 .toString(),
             QStringLiteral("mixed"));
}

BrowserObservation TestObservation::structuredSample()
{
    BrowserObservation observation = sample();
    observation.readiness.reset();
    observation.regions = {
        RegionRecord{QStringLiteral("abc.g0"), QStringLiteral("dialog"), QStringLiteral("Cookies"),
                     0, QStringLiteral("We use cookies"), false},
        RegionRecord{QStringLiteral("abc.g1"), QStringLiteral("heading"), QStringLiteral("Cart"), 1,
                     QString(), false},
        RegionRecord{QStringLiteral("abc.g2"), QStringLiteral("form"), QString(), 0,
                     QString(512, u's'), true},
    };
    observation.regionCoverage = RegionCoverage{1, QStringLiteral("main_document"), 140, false, 3};
    observation.focus = FocusState{QStringLiteral("abc.g2"), 10, 17};
    observation.waitFor =
        WaitOutcome{WaitOutcome::Status::Ambiguous, QStringLiteral("first_window"), 4, 812};
    return observation;
}

void TestObservation::regionsFocusAndWaitRoundTrip()
{
    const BrowserObservation observation = structuredSample();
    const QJsonObject json = observation.toJson();
    const auto parsed = BrowserObservation::fromJson(json, TestOverrides());
    QVERIFY(parsed.ok());
    QCOMPARE(parsed.value(), observation);
    // Only headings carry a level.
    const QJsonArray regions = json.value(QStringLiteral("regions")).toArray();
    QVERIFY(!regions.at(0).toObject().contains(QStringLiteral("level")));
    QCOMPARE(regions.at(1).toObject().value(QStringLiteral("level")).toInt(), 1);
    QCOMPARE(json.value(QStringLiteral("wait_for")).toObject().value(QStringLiteral("status")),
             QJsonValue(QStringLiteral("ambiguous")));
    // Without regions the members are absent, as for providers that do not collect them.
    QVERIFY(!sample().toJson().contains(QStringLiteral("regions")));
    QVERIFY(!sample().toJson().contains(QStringLiteral("region_coverage")));
}

void TestObservation::actionOutcomeIsStrict()
{
    BrowserObservation observation = sample();
    observation.action = ActionOutcome{QStringLiteral("scroll"), true, -400};
    const auto parsed = BrowserObservation::fromJson(observation.toJson(), TestOverrides());
    QVERIFY(parsed.ok());
    QCOMPARE(parsed.value(), observation);
    observation.action = ActionOutcome{QStringLiteral("check"), false, std::nullopt};
    QCOMPARE(BrowserObservation::fromJson(observation.toJson(), TestOverrides()).value(),
             observation);
    const QJsonObject base = sample().toJson();
    const QList<QJsonValue> bad = {
        QJsonValue(QStringLiteral("click")),
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("drag")},
                    {QStringLiteral("dispatched"), true}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("click")},
                    {QStringLiteral("dispatched"), false}}, // only a check can send nothing
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("click")},
                    {QStringLiteral("dispatched"), true},
                    {QStringLiteral("scrolled_px"), 3}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("scroll")},
                    {QStringLiteral("dispatched"), true}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("scroll")},
                    {QStringLiteral("dispatched"), true},
                    {QStringLiteral("scrolled_px"), 2001}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("type")},
                    {QStringLiteral("dispatched"), true},
                    {QStringLiteral("text"), QStringLiteral("typed")}},
    };
    for (const QJsonValue &action : bad) {
        QJsonObject json = base;
        json.insert(QStringLiteral("action"), action);
        QVERIFY(!BrowserObservation::fromJson(json, TestOverrides()).ok());
    }
}

void TestObservation::regionFieldsAreStrict_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QJsonValue>("value");
    QTest::newRow("regions without coverage") << "region_coverage" << QJsonValue();
    QTest::newRow("unknown kind") << "regions/0/kind" << QJsonValue(QStringLiteral("banner"));
    QTest::newRow("region ref equals element ref")
        << "regions/0/ref" << QJsonValue(QStringLiteral("abc.0"));
    QTest::newRow("duplicate region ref")
        << "regions/1/ref" << QJsonValue(QStringLiteral("abc.g0"));
    QTest::newRow("summary too long") << "regions/0/summary" << QJsonValue(QString(513, u's'));
    QTest::newRow("lone surrogate summary")
        << "regions/0/summary" << QJsonValue(QString(QChar(0xD800)));
    QTest::newRow("level on a dialog") << "regions/0/level" << QJsonValue(2);
    QTest::newRow("heading level 0") << "regions/1/level" << QJsonValue(0);
    QTest::newRow("heading without level") << "regions/1/level" << QJsonValue();
    QTest::newRow("region html") << "regions/0/html" << QJsonValue(QStringLiteral("<b>"));
    QTest::newRow("coverage scope")
        << "region_coverage/scope" << QJsonValue(QStringLiteral("page"));
    QTest::newRow("coverage scanned over bound")
        << "region_coverage/scanned_nodes" << QJsonValue(8193);
    QTest::newRow("coverage omitted negative")
        << "region_coverage/omitted_regions" << QJsonValue(-1);
    QTest::newRow("focus on unknown region")
        << "focus/region_ref" << QJsonValue(QStringLiteral("abc.g9"));
    QTest::newRow("focus on an element")
        << "focus/region_ref" << QJsonValue(QStringLiteral("abc.0"));
    QTest::newRow("focus offset past text") << "focus/text_offset" << QJsonValue(18);
    QTest::newRow("focus text over ceiling") << "focus/text_bytes" << QJsonValue(262145);
    QTest::newRow("wait status") << "wait_for/status" << QJsonValue(QStringLiteral("maybe"));
    QTest::newRow("wait scope") << "wait_for/scope" << QJsonValue(QStringLiteral("page"));
    QTest::newRow("wait observations 22") << "wait_for/observations" << QJsonValue(22);
    QTest::newRow("wait observations 0") << "wait_for/observations" << QJsonValue(0);
}

void TestObservation::regionFieldsAreStrict()
{
    QFETCH(QString, path);
    QFETCH(QJsonValue, value);
    QJsonObject json = structuredSample().toJson();
    const QStringList parts = path.split(u'/');
    // Replace (or, for an undefined value, remove) one member at a path of at most three.
    const auto set = [&value](QJsonObject object, const QString &key) {
        if (value.isUndefined())
            object.remove(key);
        else
            object.insert(key, value);
        return object;
    };
    if (parts.size() == 1) {
        json = set(json, parts.at(0));
    } else if (parts.size() == 2) {
        json.insert(parts.at(0), set(json.value(parts.at(0)).toObject(), parts.at(1)));
    } else {
        QJsonArray array = json.value(parts.at(0)).toArray();
        const int index = parts.at(1).toInt();
        array.replace(index, set(array.at(index).toObject(), parts.at(2)));
        json.insert(parts.at(0), array);
    }
    const auto parsed = BrowserObservation::fromJson(json, TestOverrides());
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.error().code, QStringLiteral("tool.browser.output_invalid"));
}

void TestObservation::revisionsAreRandomAndLong()
{
    QSet<QString> seen;
    for (int i = 0; i < 1000; ++i) {
        const QString revision = newRevision();
        QVERIFY(revision.size() >= 22); // 144 bits in base64url
        QVERIFY(!seen.contains(revision));
        seen.insert(revision);
    }
}

void TestObservation::rejects_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value");
    QTest::newRow("http url") << "url" << QJsonValue(QStringLiteral("http://shop.acme-store.com/"));
    QTest::newRow("ip url") << "url" << QJsonValue(QStringLiteral("https://127.0.0.1/"));
    QTest::newRow("localhost url") << "url" << QJsonValue(QStringLiteral("https://localhost/"));
    QTest::newRow("title type") << "title" << QJsonValue(3);
    QTest::newRow("short revision") << "revision" << QJsonValue(QStringLiteral("abc"));
    QTest::newRow("readiness") << "readiness" << QJsonValue(QStringLiteral("idle"));
    QTest::newRow("text type") << "text" << QJsonValue(false);
    QTest::newRow("elements type") << "elements" << QJsonValue(QJsonObject());
    QTest::newRow("unknown key") << "html" << QJsonValue(QStringLiteral("<p>"));
    QTest::newRow("coverage") << "coverage" << QJsonValue(QJsonObject());
    QTest::newRow("text coverage") << "text_coverage" << QJsonValue(QJsonObject());
}

void TestObservation::rejects()
{
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    QJsonObject json = sample().toJson();
    json.insert(key, value);
    const auto parsed = BrowserObservation::fromJson(json, TestOverrides());
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.error().code, QStringLiteral("tool.browser.output_invalid"));
}

void TestObservation::boundsAreEnforced()
{
    const auto check = [](auto mutate) {
        BrowserObservation observation = sample();
        mutate(observation);
        return BrowserObservation::fromJson(observation.toJson(), TestOverrides()).ok();
    };
    QVERIFY(check([](BrowserObservation &) {}));
    QVERIFY(!check([](BrowserObservation &o) {
        o.text = QString(ObservationBounds::kMaxTextBytes + 1, QLatin1Char('a'));
    }));
    QVERIFY(check([](BrowserObservation &o) {
        o.text = QString(ObservationBounds::kMaxTextBytes, QLatin1Char('a'));
    }));
    // 256 KiB of UTF-16 units, but more UTF-8 bytes than the bound.
    QVERIFY(!check([](BrowserObservation &o) {
        o.text = QString(ObservationBounds::kMaxTextBytes / 2 + 1, QChar(0x00e9));
    }));
    QVERIFY(!check([](BrowserObservation &o) {
        o.title = QString(ObservationBounds::kMaxTitleUnits + 1, QLatin1Char('t'));
    }));
    QVERIFY(!check([](BrowserObservation &o) {
        o.elements[0].name = QString(ObservationBounds::kMaxNameUnits + 1, QLatin1Char('n'));
    }));
    QVERIFY(!check([](BrowserObservation &o) { o.elements[1].ref = o.elements[0].ref; }));
    // Candidate windows: a cursor is 32-128 units; a window ends at position 65,536 at most,
    // and a window that ends there has nowhere to continue.
    QVERIFY(check([](BrowserObservation &o) { o.coverage.nextCursor = QString(32, u'c'); }));
    QVERIFY(check([](BrowserObservation &o) { o.coverage.nextCursor = QString(128, u'c'); }));
    QVERIFY(!check([](BrowserObservation &o) { o.coverage.nextCursor = QString(31, u'c'); }));
    QVERIFY(!check([](BrowserObservation &o) { o.coverage.nextCursor = QString(129, u'c'); }));
    QVERIFY(check([](BrowserObservation &o) {
        o.coverage.candidateOffset = 65535 - 4095;
        o.coverage.scannedCandidates = 4096;
        o.coverage.scanLimitReached = true;
    }));
    QVERIFY(!check([](BrowserObservation &o) {
        o.coverage.candidateOffset = 65536 - 4095;
        o.coverage.scannedCandidates = 4096;
    }));
    QVERIFY(!check([](BrowserObservation &o) { o.coverage.candidateOffset = 65536; }));
    QVERIFY(!check([](BrowserObservation &o) { o.coverage.scannedCandidates = 4097; }));
    QVERIFY(!check([](BrowserObservation &o) {
        o.coverage.candidateOffset = 65536 - 4096;
        o.coverage.scannedCandidates = 4096;
        o.coverage.nextCursor = QString(32, u'c');
    }));
    QVERIFY(!check([](BrowserObservation &o) { o.elements[0].role = QStringLiteral("Button"); }));
    QVERIFY(!check([](BrowserObservation &o) { o.elements[0].ref.clear(); }));
    QVERIFY(!check([](BrowserObservation &o) { o.title = QString(QChar(0xd800)); }));
    // A count far outside every integer type is refused, not converted (found by fuzzing).
    for (const double huge : {7.7777e66, -7.7777e66, 9223372036854775808.0, 1e308}) {
        QJsonObject json = sample().toJson();
        QJsonObject coverage = json.value(QStringLiteral("text_coverage")).toObject();
        coverage.insert(QStringLiteral("scanned_nodes"), huge);
        json.insert(QStringLiteral("text_coverage"), coverage);
        QVERIFY(!BrowserObservation::fromJson(json, TestOverrides()).ok());
    }
    // An act answers with a first window: no wait_for outcome beside its action.
    QVERIFY(check([](BrowserObservation &o) {
        o.action = ActionOutcome{QStringLiteral("click"), true, std::nullopt};
    }));
    QVERIFY(!check([](BrowserObservation &o) {
        o.action = ActionOutcome{QStringLiteral("click"), true, std::nullopt};
        o.waitFor = WaitOutcome{};
    }));
    QVERIFY(!check([](BrowserObservation &o) {
        const ElementRecord element = o.elements[0];
        o.elements.clear();
        for (int i = 0; i <= ObservationBounds::kMaxElements; ++i) {
            ElementRecord copy = element;
            copy.ref = QStringLiteral("r.%1").arg(i);
            o.elements.append(copy);
        }
    }));
}

void TestObservation::hostProtocolValidatesResponses()
{
    const BrowserObservation observation = sample();
    const QByteArray line = HostProtocol::encodeResult(7, observation).trimmed();
    const auto response = HostProtocol::decodeResponse(line, TestOverrides());
    QVERIFY(response.has_value());
    QCOMPARE(response->id, quint64(7));
    QVERIFY(response->result.ok());
    QCOMPARE(response->result.value(), observation);
    QVERIFY(!response->engine);

    // The host's browser names its engine beside an observation; anything but a closed name
    // and a version of digits is not a host to trust.
    const EngineIdentity chromium{BrowserEngine::Chromium, QStringLiteral("156.0.8078.114")};
    const auto named = HostProtocol::decodeResponse(
        HostProtocol::encodeResult(7, observation, {}, std::nullopt, chromium).trimmed(),
        TestOverrides());
    QVERIFY(named.has_value());
    QCOMPARE(named->engine, std::optional<EngineIdentity>(chromium));
    QJsonObject spoofed = QJsonDocument::fromJson(line).object();
    spoofed.insert(
        QStringLiteral("engine"),
        QJsonObject{{QStringLiteral("name"), QStringLiteral("chromium")},
                    {QStringLiteral("version"), QStringLiteral("see https://x.example")}});
    QVERIFY(!HostProtocol::decodeResponse(QJsonDocument(spoofed).toJson(QJsonDocument::Compact),
                                          TestOverrides()));

    // An unknown error code from the host becomes provider_unavailable; a host's own message
    // text is never passed on.
    const auto foreign = HostProtocol::decodeResponse(
        R"({"id":8,"error":{"code":"net::ERR_CERT","message":"page said hello"}})",
        TestOverrides());
    QVERIFY(foreign.has_value());
    QCOMPARE(foreign->result.error().code, QStringLiteral("tool.browser.provider_unavailable"));
    QCOMPARE(foreign->result.error().message, reasonCodeMessage(ReasonCode::ProviderUnavailable));
    const auto known = HostProtocol::decodeResponse(
        R"({"id":9,"error":{"code":"tool.browser.url_disallowed","message":"page text"}})",
        TestOverrides());
    QCOMPARE(known->result.error().message, reasonCodeMessage(ReasonCode::UrlDisallowed));

    // An invalid observation is output_invalid, a malformed line is refused.
    QJsonObject bad = observation.toJson();
    bad.insert(QStringLiteral("html"), QStringLiteral("<b>"));
    QByteArray badLine =
        R"({"id":10,"observation":)" + QJsonDocument(bad).toJson(QJsonDocument::Compact) + "}";
    const auto invalid = HostProtocol::decodeResponse(badLine, TestOverrides());
    QCOMPARE(invalid->result.error().code, QStringLiteral("tool.browser.output_invalid"));
    QVERIFY(!HostProtocol::decodeResponse("{", TestOverrides()).has_value());
    QVERIFY(
        !HostProtocol::decodeResponse(R"({"id":0,"observation":{}})", TestOverrides()).has_value());
    QVERIFY(HostProtocol::decodeResponse(R"({"event":"ready"})", TestOverrides())->ready);

    // The dispatch gate's question names only the act's id.
    const auto gate = HostProtocol::decodeResponse(HostProtocol::encodeDispatchGate(11).trimmed(),
                                                   TestOverrides());
    QVERIFY(gate && gate->dispatchGate);
    QCOMPARE(gate->id, quint64(11));
    QVERIFY(!HostProtocol::decodeResponse(R"({"id":11,"event":"dispatch","open":true})",
                                          TestOverrides()));
    QVERIFY(!HostProtocol::decodeResponse(R"({"event":"dispatch"})", TestOverrides()));
}

void TestObservation::hostProtocolCarriesElementFactsBesideTheObservation()
{
    const BrowserObservation observation = sample();
    const QString ref = observation.elements.first().ref;
    ElementFacts facts{observation.elements.first().role, observation.elements.first().name,
                       QStringLiteral("Pay now"),         QStringLiteral("Checkout"),
                       QStringLiteral("password"),        QStringLiteral("current-password")};
    facts.visibleTextWhole = false;
    facts.labels = {LabelText{LabelSource::AriaLabel, QStringLiteral("Pay"), true},
                    LabelText{LabelSource::ButtonValue, QStringLiteral("pay-now"), false}};
    facts.selectedOption = QStringLiteral("Express");
    facts.fieldKind = FieldKind::Credential;
    facts.inForm = true;
    facts.native = true;
    facts.target = NavigationTarget{
        true, QStringLiteral("account"),        true, BrowserActionConsequence::Destructive, false,
        true, BrowserActionConsequence::SignOut};
    const QByteArray line = HostProtocol::encodeResult(7, observation, {{ref, facts}}).trimmed();
    const auto response = HostProtocol::decodeResponse(line, TestOverrides());
    QVERIFY(response && response->result.ok());
    QCOMPARE(response->result.value(), observation); // never inside the observation
    QCOMPARE(response->facts.size(), 1);
    QCOMPARE(response->facts.value(ref), facts);

    // Role, name and disabled state are the observation's own, whatever the line says; facts
    // for a ref the observation does not have, unknown fields, wrong types, oversized text, an
    // unknown field kind, label source or consequence, a label source twice, a URL beside the
    // target's summary, or a summary that contradicts itself are refused.
    QJsonObject object = QJsonDocument::fromJson(line).object();
    const auto withFacts = [&object](const QJsonValue &value) {
        QJsonObject copy = object;
        copy.insert(QStringLiteral("facts"), value);
        return HostProtocol::decodeResponse(QJsonDocument(copy).toJson(QJsonDocument::Compact),
                                            TestOverrides());
    };
    const QJsonObject good = object.value(QStringLiteral("facts")).toObject().value(ref).toObject();
    QCOMPARE(good.size(), 12);
    QVERIFY(withFacts(QJsonObject{{ref, good}}));
    QVERIFY(!withFacts(QJsonObject{{QStringLiteral("not.a.ref"), good}}));
    const auto changed = [&good](const QString &key, const QJsonValue &value) {
        QJsonObject copy = good;
        copy.insert(key, value);
        return copy;
    };
    const auto changedTarget = [&good, &changed](const QString &key, const QJsonValue &value) {
        QJsonObject target = good.value(QStringLiteral("target")).toObject();
        target.insert(key, value);
        return changed(QStringLiteral("target"), target);
    };
    QJsonArray twice = good.value(QStringLiteral("labels")).toArray();
    twice.append(twice.first());
    const QJsonObject refused[] = {
        changed(QStringLiteral("role"), QStringLiteral("link")),
        changed(QStringLiteral("disabled"), true),
        changed(QStringLiteral("text"), 5),
        changed(QStringLiteral("text"), QString(ElementFacts::kMaxLabelUnits + 1, u'x')),
        changed(QStringLiteral("dialog"), QString(ElementFacts::kMaxDialogUnits + 1, u'x')),
        changed(QStringLiteral("option"), QString(ElementFacts::kMaxLabelUnits + 1, u'x')),
        changed(QStringLiteral("field_kind"), QStringLiteral("password")),
        changed(QStringLiteral("labels"), twice),
        changed(QStringLiteral("labels"),
                QJsonArray{QJsonObject{{QStringLiteral("source"), QStringLiteral("css")},
                                       {QStringLiteral("text"), QStringLiteral("x")},
                                       {QStringLiteral("whole"), true}}}),
        changed(QStringLiteral("target"), QStringLiteral("https://shop.test/account/delete")),
        changedTarget(QStringLiteral("url"), QStringLiteral("https://shop.test/account/delete")),
        changedTarget(QStringLiteral("path_consequence"), QStringLiteral("routine")),
        changedTarget(QStringLiteral("sensitive"), false),
        changedTarget(QStringLiteral("submission"), 1),
        changedTarget(QStringLiteral("query_consequence"), QStringLiteral("logout")),
        changedTarget(QStringLiteral("first_segment"),
                      QString(ElementFacts::kMaxSegmentUnits + 1, u'x')),
    };
    for (const QJsonObject &record : refused)
        QVERIFY(!withFacts(QJsonObject{{ref, record}}));
    QVERIFY(!withFacts(QJsonArray{}));
}

void TestObservation::hostProtocolCarriesPageEvidenceBesideTheObservation()
{
    const BrowserObservation observation = sample();
    const QByteArray line =
        HostProtocol::encodeResult(7, observation, {}, PageEvidence{3}).trimmed();
    const auto response = HostProtocol::decodeResponse(line, TestOverrides());
    QVERIFY(response && response->result.ok());
    QCOMPARE(response->result.value(), observation); // never inside the observation
    QCOMPARE(response->page, std::optional<PageEvidence>(PageEvidence{3}));
    QVERIFY(!HostProtocol::decodeResponse(HostProtocol::encodeResult(7, observation).trimmed(),
                                          TestOverrides())
                 ->page.has_value());

    QJsonObject object = QJsonDocument::fromJson(line).object();
    const auto withPage = [&object](const QJsonValue &value) {
        QJsonObject copy = object;
        copy.insert(QStringLiteral("page"), value);
        return HostProtocol::decodeResponse(QJsonDocument(copy).toJson(QJsonDocument::Compact),
                                            TestOverrides());
    };
    QVERIFY(withPage(QJsonObject{{QStringLiteral("challenge_frames"), 0}}));
    // The writes the guard refused after the last act, only when there were some.
    const auto late = withPage(
        QJsonObject{{QStringLiteral("challenge_frames"), 0}, {QStringLiteral("late_writes"), 2}});
    QVERIFY(late && late->page && late->page->lateWrites == 2);
    QVERIFY(!withPage(
        QJsonObject{{QStringLiteral("challenge_frames"), 0}, {QStringLiteral("late_writes"), 0}}));
    QVERIFY(
        !withPage(QJsonObject{{QStringLiteral("challenge_frames"), 0},
                              {QStringLiteral("late_writes"), PageEvidence::kMaxLateWrites + 1}}));
    QCOMPARE(HostProtocol::decodeResponse(
                 HostProtocol::encodeResult(7, observation, {}, PageEvidence{0, 4}).trimmed(),
                 TestOverrides())
                 ->page->lateWrites,
             4);
    // What the write guard saw of the last request it refused: method, plain segment,
    // consequence, each within its rules.
    const WriteGuard::RefusedWrite seen{"POST", QStringLiteral("delete"),
                                        BrowserActionConsequence::Destructive};
    const auto refused = HostProtocol::decodeResponse(
        HostProtocol::encodeResult(7, observation, {}, PageEvidence{0, 0, seen}).trimmed(),
        TestOverrides());
    QVERIFY(refused && refused->page);
    QCOMPARE(refused->page->refusedWrite, std::optional<WriteGuard::RefusedWrite>(seen));
    // The requests to strangers refused since the previous capture: a bounded count.
    const auto strangers = HostProtocol::decodeResponse(
        HostProtocol::encodeResult(7, observation, {}, PageEvidence{0, 0, std::nullopt, 9})
            .trimmed(),
        TestOverrides());
    QVERIFY(strangers && strangers->page);
    QCOMPARE(strangers->page->strangerRequestsRefused, 9);
    QVERIFY(!withPage(QJsonObject{{QStringLiteral("challenge_frames"), 0},
                                  {QStringLiteral("strangers_refused"), 0}}));
    QVERIFY(!withPage(QJsonObject{{QStringLiteral("challenge_frames"), 0},
                                  {QStringLiteral("strangers_refused"), QStringLiteral("x")}}));
    const auto withRefused = [&withPage](const QJsonObject &record) {
        return withPage(QJsonObject{{QStringLiteral("challenge_frames"), 0},
                                    {QStringLiteral("refused"), record}});
    };
    const QJsonObject good{{QStringLiteral("method"), QStringLiteral("POST")},
                           {QStringLiteral("segment"), QStringLiteral("delete")},
                           {QStringLiteral("consequence"), QStringLiteral("destructive")}};
    QVERIFY(withRefused(good));
    for (const auto &[member, value] :
         {std::pair{"method", QJsonValue(QStringLiteral("BREW"))},
          std::pair{"segment", QJsonValue(QStringLiteral("a/b?token=x"))},
          std::pair{"consequence", QJsonValue(QStringLiteral("routine"))},
          std::pair{"url", QJsonValue(QStringLiteral("https://a.test/"))}}) {
        QJsonObject bad = good;
        bad.insert(QString::fromLatin1(member), value);
        QVERIFY2(!withRefused(bad), member);
    }
    QVERIFY(!withPage(QJsonObject{{QStringLiteral("challenge_frames"), -1}}));
    QVERIFY(!withPage(
        QJsonObject{{QStringLiteral("challenge_frames"), PageEvidence::kMaxChallengeFrames + 1}}));
    QVERIFY(!withPage(QJsonObject{{QStringLiteral("challenge_frames"), 1.5}}));
    QVERIFY(!withPage(QJsonObject{{QStringLiteral("challenge_frames"), 1},
                                  {QStringLiteral("url"), QStringLiteral("https://a.test/")}}));
    QVERIFY(!withPage(QJsonObject{}));
    QVERIFY(!withPage(QJsonArray{}));
    // Only beside an observation.
    QVERIFY(!HostProtocol::decodeResponse(
        R"({"id":7,"error":{"code":"tool.browser.page_changed","message":"x"},)"
        R"("page":{"challenge_frames":1}})",
        TestOverrides()));
}

// The owner's remote view crosses the host protocol: view and input requests round trip and
// are strict; a screen event is a bounded JPEG with a sane size, and anything else is refused.
void TestObservation::hostProtocolCarriesTheOwnersView()
{
    HostProtocol::Request start{4, QStringLiteral("view")};
    start.start = true;
    start.viewMax = QSize(640, 400);
    const auto startBack =
        HostProtocol::decodeRequest(HostProtocol::encodeRequest(start).trimmed());
    QVERIFY(startBack && startBack->start);
    QCOMPARE(startBack->viewMax, QSize(640, 400));
    const auto stop = HostProtocol::decodeRequest(
        HostProtocol::encodeRequest(HostProtocol::Request{5, QStringLiteral("view")}).trimmed());
    QVERIFY(stop && !stop->start);
    HostProtocol::Request input{6, QStringLiteral("input")};
    OwnerInput typed;
    typed.kind = OwnerInput::Kind::Text;
    typed.text = QStringLiteral("owner@example.test");
    input.input = typed;
    const auto inputBack =
        HostProtocol::decodeRequest(HostProtocol::encodeRequest(input).trimmed());
    QVERIFY(inputBack && inputBack->input);
    QCOMPARE(inputBack->input->text, typed.text);
    for (const char *bad :
         {R"({"id":7,"op":"view","start":true})", R"({"id":7,"op":"view","start":1})",
          R"({"id":7,"op":"view","start":false,"max_width":5})",
          R"({"id":7,"op":"view","start":true,"max_width":0,"max_height":5})",
          R"({"id":7,"op":"input","input":{"type":"text","text":""}})",
          R"({"id":7,"op":"input","input":{"type":"teleport"}})", R"({"id":7,"op":"input"})"})
        QVERIFY2(!HostProtocol::decodeRequest(bad), bad);

    const QByteArray jpeg("\xFF\xD8\xFF\xE0 a frame");
    const auto screen = HostProtocol::decodeResponse(
        HostProtocol::encodeScreen(
            {jpeg, QSize(640, 400), QUrl(QStringLiteral("https://shop.acme-store.com/login"))})
            .trimmed(),
        TestOverrides());
    QVERIFY(screen && screen->screen);
    QCOMPARE(screen->screen->jpeg, jpeg);
    QCOMPARE(screen->screen->size, QSize(640, 400));
    QCOMPARE(screen->screen->page, QUrl(QStringLiteral("https://shop.acme-store.com/login")));
    QVERIFY(screen->screen->isSecure());
    // Where the page is, bare: a query, a fragment or user info never crosses.
    QCOMPARE(OwnerViewFrame::pageOf(QUrl(QStringLiteral("https://u:p@shop.test/a?token=1#x"))),
             QUrl(QStringLiteral("https://shop.test/a")));
    for (const char *page : {"https://shop.test/a?token=1", "https://shop.test/#x",
                             "javascript:alert(1)", "https://u:p@shop.test/"}) {
        QVERIFY2(
            !HostProtocol::decodeResponse(
                HostProtocol::encodeScreen({jpeg, QSize(640, 400), QUrl(QString::fromLatin1(page))})
                    .trimmed(),
                TestOverrides()),
            page);
    }
    const auto png = HostProtocol::decodeResponse(
        HostProtocol::encodeScreen({QByteArray("\x89PNG...."), QSize(640, 400)}).trimmed(),
        TestOverrides());
    QVERIFY(!png);
    QVERIFY(!HostProtocol::decodeResponse(
        HostProtocol::encodeScreen({jpeg, QSize(0, 400)}).trimmed(), TestOverrides()));
    QVERIFY(!HostProtocol::decodeResponse(R"({"event":"screen","jpeg":"!!!","width":1,"height":1})",
                                          TestOverrides()));
    const QByteArray huge = QByteArray("\xFF\xD8") + QByteArray(OwnerViewFrame::kMaxJpegBytes, 'x');
    QVERIFY(!HostProtocol::decodeResponse(
        HostProtocol::encodeScreen({huge, QSize(640, 400)}).trimmed(), TestOverrides()));
}

void TestObservation::hostProtocolRequestsAreStrict()
{
    const QByteArray line = HostProtocol::encodeRequest(
        {3, QStringLiteral("navigate"), QStringLiteral("https://shop.acme-store.com/")});
    const auto request = HostProtocol::decodeRequest(line.trimmed());
    QVERIFY(request.has_value());
    QCOMPARE(request->id, quint64(3));
    QCOMPARE(request->url, QStringLiteral("https://shop.acme-store.com/"));
    QVERIFY(HostProtocol::decodeRequest(R"({"id":1,"op":"observe","mode":{}})").has_value());
    QVERIFY(!HostProtocol::decodeRequest(R"({"id":1,"op":"observe"})").has_value());
    QVERIFY(!HostProtocol::decodeRequest(R"({"id":1,"op":"eval","js":"x"})").has_value());
    QVERIFY(!HostProtocol::decodeRequest(R"({"id":1,"op":"observe","x":1})").has_value());
    QVERIFY(!HostProtocol::decodeRequest(R"({"id":1,"op":"navigate"})").has_value());
    // A navigation's flags: guarded (no approval stands behind it) and discard_unsaved, each
    // present only when true.
    HostProtocol::Request guarded{5, QStringLiteral("navigate"),
                                  QStringLiteral("https://shop.acme-store.com/")};
    guarded.guarded = true;
    guarded.discardUnsaved = true;
    const auto decodedGuarded =
        HostProtocol::decodeRequest(HostProtocol::encodeRequest(guarded).trimmed());
    QVERIFY(decodedGuarded && decodedGuarded->guarded && decodedGuarded->discardUnsaved);
    QVERIFY(!request->guarded && !request->discardUnsaved);
    const QByteArray unguarded =
        R"({"id":1,"op":"navigate","url":"https://a.test/","guarded":false})";
    const QByteArray discardOne =
        R"({"id":1,"op":"navigate","url":"https://a.test/","discard_unsaved":1})";
    QVERIFY(!HostProtocol::decodeRequest(unguarded));
    QVERIFY(!HostProtocol::decodeRequest(discardOne));
    QVERIFY(!HostProtocol::decodeRequest(R"({"id":-1,"op":"observe","mode":{}})").has_value());
    QVERIFY(!HostProtocol::decodeRequest(R"([1])").has_value());

    // act carries browser.act's closed arguments; the gate answer one boolean.
    HostProtocol::Request act{4, QStringLiteral("act")};
    act.act = ActRequest::type(QStringLiteral("rev"), QStringLiteral("a.1"), QStringLiteral("hi"))
                  .value();
    const auto decodedAct = HostProtocol::decodeRequest(HostProtocol::encodeRequest(act).trimmed());
    QVERIFY(decodedAct && decodedAct->act);
    QCOMPARE(decodedAct->act->argumentDigest(), act.act->argumentDigest());
    QVERIFY(!HostProtocol::decodeRequest(
        R"({"id":1,"op":"act","act":{"kind":"hover","expected_revision":"r","ref":"a"}})"));
    QVERIFY(!HostProtocol::decodeRequest(R"({"id":1,"op":"act"})"));
    HostProtocol::Request open{4, QStringLiteral("dispatch")};
    open.open = true;
    const auto decodedOpen =
        HostProtocol::decodeRequest(HostProtocol::encodeRequest(open).trimmed());
    QVERIFY(decodedOpen && decodedOpen->open);
    QVERIFY(!HostProtocol::decodeRequest(R"({"id":1,"op":"dispatch","open":"yes"})"));
    QVERIFY(!HostProtocol::decodeRequest(R"({"id":1,"op":"dispatch"})"));
}

QTEST_GUILESS_MAIN(TestObservation)
#include "tst_observation.moc"
