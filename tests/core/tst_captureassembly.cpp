// Capture assembly: the collector's answer to one capture call becomes an observation, its
// approval facts and its continuation state, or a fixed refusal, without a browser.

#include "domain/observation/CaptureAssembly.h"

#include <QJsonArray>
#include <QTest>

using namespace veetbot;
using namespace veetbot::CaptureAssembly;

namespace {

const QUrl kPage(QStringLiteral("https://shop.acme-store.com/cart"));

BrowserObservation sample()
{
    BrowserObservation o;
    o.url = kPage;
    o.title = QStringLiteral("Cart");
    o.text = QStringLiteral("Your cart holds two items.");
    o.elements = {
        ElementRecord{QStringLiteral("c1.0"), QStringLiteral("button"), QStringLiteral("Pay"), {}},
        ElementRecord{
            QStringLiteral("c1.1"), QStringLiteral("textbox"), QStringLiteral("Note"), {}}};
    return o;
}

// One element's facts as the collector answers them.
QJsonObject collectorFacts(const QString &inputType, const QString &autocomplete,
                           const QString &text, const QString &control,
                           const QJsonValue &target = QJsonValue::Null)
{
    return QJsonObject{{QStringLiteral("input_type"), inputType},
                       {QStringLiteral("autocomplete"), autocomplete},
                       {QStringLiteral("text"), text},
                       {QStringLiteral("text_whole"), true},
                       {QStringLiteral("dialog"), QString()},
                       {QStringLiteral("labels"), QJsonArray{}},
                       {QStringLiteral("option"), QString()},
                       {QStringLiteral("option_whole"), true},
                       {QStringLiteral("control"), control},
                       {QStringLiteral("editable"), false},
                       {QStringLiteral("in_form"), false},
                       {QStringLiteral("target"), target}};
}

QJsonObject payFacts()
{
    return collectorFacts(QString(), QString(), QStringLiteral("Pay now"), QString());
}

QJsonObject noteFacts()
{
    return collectorFacts(QStringLiteral("text"), QStringLiteral("off"), QString(),
                          QStringLiteral("input"));
}

// What the collector answers for sample(): the observation's own fields, window coverage in
// candidate positions, and the facts sidecar.
QJsonObject answer(std::optional<int> nextPosition = std::nullopt)
{
    const QJsonObject o = sample().toJson();
    return QJsonObject{
        {QStringLiteral("ok"), true},
        {QStringLiteral("title"), o.value(QStringLiteral("title"))},
        {QStringLiteral("text"), o.value(QStringLiteral("text"))},
        {QStringLiteral("text_coverage"), o.value(QStringLiteral("text_coverage"))},
        {QStringLiteral("elements"), o.value(QStringLiteral("elements"))},
        {QStringLiteral("coverage"),
         QJsonObject{{QStringLiteral("candidate_offset"), 0},
                     {QStringLiteral("scanned_candidates"), 2},
                     {QStringLiteral("scan_limit_reached"), false},
                     {QStringLiteral("next_position"),
                      nextPosition ? QJsonValue(*nextPosition) : QJsonValue(QJsonValue::Null)}}},
        {QStringLiteral("facts"), QJsonArray{payFacts(), noteFacts()}},
    };
}

Request request()
{
    return Request{.url = kPage,
                   .revision = newRevision(),
                   .cursorToken = randomToken(24),
                   .evidencePrefix = randomToken(6)};
}

QJsonObject with(QJsonObject object, const QString &key, const QJsonValue &value)
{
    object.insert(key, value);
    return object;
}

QJsonObject coverage(int offset, int scanned, bool limit, const QJsonValue &next)
{
    return QJsonObject{{QStringLiteral("candidate_offset"), offset},
                       {QStringLiteral("scanned_candidates"), scanned},
                       {QStringLiteral("scan_limit_reached"), limit},
                       {QStringLiteral("next_position"), next}};
}

} // namespace

class TestCaptureAssembly : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void assemblesTheObservationAndItsSidecar();
    void theCursorStandsForTheNextPosition();
    void coverageMustBeExact_data();
    void coverageMustBeExact();
    void malformedFactsRecordNone();
    void challengeFramesAreCountedPrivately();
    void labelsFieldKindsAndTargetSummaries();
    void anInvalidObservationIsRefused();
    void focusedReadsKeepTheirRegionText();
    void draftVerdicts();
    void theActionTravelsWithItsCapture();
    void unchangedTextIsPutBack();
};

void TestCaptureAssembly::assemblesTheObservationAndItsSidecar()
{
    const Request r = request();
    const Result<Capture> capture = assemble(answer(), r, TestOverrides());
    QVERIFY2(capture.ok(), capture.ok() ? "" : qPrintable(capture.error().code));
    QCOMPARE(capture->observation.url, kPage);
    QCOMPARE(capture->observation.revision, r.revision);
    QCOMPARE(capture->observation.elements, sample().elements);
    QVERIFY(!capture->observation.coverage.nextCursor);
    QVERIFY(!capture->nextPosition);
    QVERIFY(!capture->focus);
    QVERIFY(!capture->nextDraft);
    // The facts carry the observation's own role and name, and stay out of it.
    QCOMPARE(capture->facts.size(), 2);
    QCOMPARE(capture->facts.value(QStringLiteral("c1.0")).visibleText, QStringLiteral("Pay now"));
    QCOMPARE(capture->facts.value(QStringLiteral("c1.0")).accessibleName, QStringLiteral("Pay"));
    QCOMPARE(capture->facts.value(QStringLiteral("c1.1")).inputType, QStringLiteral("text"));
    QVERIFY(!capture->observation.toJson().contains(QStringLiteral("facts")));
}

void TestCaptureAssembly::theCursorStandsForTheNextPosition()
{
    const Request r = request();
    const Result<Capture> capture = assemble(answer(2), r, TestOverrides());
    QVERIFY(capture.ok());
    QCOMPARE(capture->nextPosition, std::optional<int>(2));
    // The model sees the opaque token, never the position.
    QCOMPARE(capture->observation.coverage.nextCursor, std::optional<QString>(r.cursorToken));
}

void TestCaptureAssembly::coverageMustBeExact_data()
{
    QTest::addColumn<QJsonValue>("coverage");
    QTest::addColumn<int>("expectedOffset"); // -1: not known ({after})
    QTest::newRow("not an object") << QJsonValue(3) << 0;
    QTest::newRow("another offset") << QJsonValue(coverage(5, 2, false, QJsonValue::Null)) << 0;
    QTest::newRow("next not after the window") << QJsonValue(coverage(0, 2, false, 3)) << 0;
    QTest::newRow("next with the scan limit") << QJsonValue(coverage(0, 2, true, 2)) << 0;
    QTest::newRow("next after nothing scanned") << QJsonValue(coverage(0, 0, false, 0)) << 0;
    QTest::newRow("fractional offset") << QJsonValue(with(coverage(0, 2, false, QJsonValue::Null),
                                                          QStringLiteral("candidate_offset"), 0.5))
                                       << -1;
    QTest::newRow("huge number") << QJsonValue(with(coverage(0, 2, false, QJsonValue::Null),
                                                    QStringLiteral("scanned_candidates"), 7.7e66))
                                 << 0;
    QTest::newRow("extra key") << QJsonValue(with(coverage(0, 2, false, QJsonValue::Null),
                                                  QStringLiteral("next_cursor"),
                                                  QStringLiteral("x")))
                               << 0;
    QTest::newRow("past the position bound")
        << QJsonValue(
               coverage(ObservationBounds::kMaxCandidatePositions - 1, 2, false, QJsonValue::Null))
        << -1;
}

void TestCaptureAssembly::coverageMustBeExact()
{
    QFETCH(QJsonValue, coverage);
    QFETCH(int, expectedOffset);
    Request r = request();
    r.expectedOffset = expectedOffset < 0 ? std::nullopt : std::optional<int>(expectedOffset);
    const Result<Capture> capture =
        assemble(with(answer(), QStringLiteral("coverage"), coverage), r, TestOverrides());
    QVERIFY(!capture.ok());
    QCOMPARE(capture.error(), Error::fromReason(ReasonCode::OutputInvalid));
}

void TestCaptureAssembly::malformedFactsRecordNone()
{
    const auto withPay = [](const QString &key, const QJsonValue &value) {
        QJsonObject pay = payFacts();
        pay.insert(key, value);
        return QJsonValue(QJsonArray{pay, noteFacts()});
    };
    const QJsonObject label{{QStringLiteral("source"), QStringLiteral("aria_label")},
                            {QStringLiteral("text"), QStringLiteral("Pay")},
                            {QStringLiteral("whole"), true}};
    for (const QJsonValue &facts : {
             QJsonValue(QJsonArray{}),
             QJsonValue(QStringLiteral("x")),
             QJsonValue(QJsonArray{QJsonObject{}, QJsonObject{}}),
             withPay(QStringLiteral("input_type"), QString(65, u'a')),
             withPay(QStringLiteral("text"), QString(ElementFacts::kMaxLabelUnits + 1, u'a')),
             withPay(QStringLiteral("dialog"), QString(ElementFacts::kMaxDialogUnits + 1, u'a')),
             withPay(QStringLiteral("option"), QString(ElementFacts::kMaxLabelUnits + 1, u'a')),
             withPay(QStringLiteral("text_whole"), QStringLiteral("yes")),
             withPay(QStringLiteral("control"), QStringLiteral("div")),
             withPay(QStringLiteral("labels"), QJsonArray{label, label}),
             withPay(QStringLiteral("labels"),
                     QJsonArray{QJsonObject{{QStringLiteral("source"), QStringLiteral("css")},
                                            {QStringLiteral("text"), QStringLiteral("Pay")},
                                            {QStringLiteral("whole"), true}}}),
             withPay(QStringLiteral("labels"),
                     QJsonArray{QJsonObject{{QStringLiteral("source"), QStringLiteral("title")},
                                            {QStringLiteral("text"), QString()},
                                            {QStringLiteral("whole"), true}}}),
             withPay(QStringLiteral("target"), QStringLiteral("https://shop.acme-store.com/")),
             withPay(QStringLiteral("target"),
                     QJsonObject{{QStringLiteral("url"), QStringLiteral("https://x.com/")}}),
             withPay(QStringLiteral("target"),
                     QJsonObject{{QStringLiteral("url"),
                                  QString(ElementFacts::kMaxTargetUrlUnits + 1, u'a')},
                                 {QStringLiteral("download"), false}}),
         }) {
        const Result<Capture> capture =
            assemble(with(answer(), QStringLiteral("facts"), facts), request(), TestOverrides());
        QVERIFY(capture.ok()); // never fails the capture: the approval view redacts instead
        QVERIFY(capture->facts.isEmpty());
    }
}

void TestCaptureAssembly::challengeFramesAreCountedPrivately()
{
    // An answer without the count reads none.
    Result<Capture> capture = assemble(answer(), request(), TestOverrides());
    QVERIFY(capture.ok());
    QCOMPARE(capture->page.challengeFrames, 0);
    capture =
        assemble(with(answer(), QStringLiteral("challenge_frames"), 2), request(), TestOverrides());
    QVERIFY(capture.ok());
    QCOMPARE(capture->page.challengeFrames, 2);
    // The count never enters the observation.
    QVERIFY(!capture->observation.toJson().contains(QStringLiteral("challenge_frames")));
    for (const QJsonValue &malformed :
         {QJsonValue(-1), QJsonValue(PageEvidence::kMaxChallengeFrames + 1), QJsonValue(1.5),
          QJsonValue(QStringLiteral("1")), QJsonValue(true), QJsonValue(QJsonValue::Null)}) {
        QCOMPARE(assemble(with(answer(), QStringLiteral("challenge_frames"), malformed), request(),
                          TestOverrides())
                     .error()
                     .code,
                 QStringLiteral("tool.browser.output_invalid"));
    }
}

void TestCaptureAssembly::labelsFieldKindsAndTargetSummaries()
{
    const auto target = [](const QString &url, bool download = false,
                           const QString &method = QStringLiteral("get")) {
        return QJsonObject{{QStringLiteral("url"), url},
                           {QStringLiteral("download"), download},
                           {QStringLiteral("method"), method}};
    };
    QJsonObject pay = collectorFacts(QString(), QString(), QStringLiteral("Pay now"), QString(),
                                     target(QStringLiteral("https://shop.acme-store.com/"
                                                           "account/delete%2Dnow?x=1#y")));
    pay.insert(QStringLiteral("labels"),
               QJsonArray{QJsonObject{{QStringLiteral("source"), QStringLiteral("aria_label")},
                                      {QStringLiteral("text"), QStringLiteral("Pay")},
                                      {QStringLiteral("whole"), true}},
                          QJsonObject{{QStringLiteral("source"), QStringLiteral("value")},
                                      {QStringLiteral("text"), QString(256, u'v')},
                                      {QStringLiteral("whole"), false}}});
    pay.insert(QStringLiteral("in_form"), true);
    QJsonObject card = collectorFacts(QStringLiteral("text"), QStringLiteral("billing cc-number"),
                                      QString(), QStringLiteral("input"));
    QJsonObject fakeAnswer = answer();
    fakeAnswer.insert(QStringLiteral("facts"), QJsonArray{pay, card});
    const Result<Capture> capture = assemble(fakeAnswer, request(), TestOverrides());
    QVERIFY(capture.ok());
    QCOMPARE(capture->facts.size(), 2);
    const ElementFacts button = capture->facts.value(QStringLiteral("c1.0"));
    QCOMPARE(button.labels.size(), 2);
    QCOMPARE(button.labels.at(0), (LabelText{LabelSource::AriaLabel, QStringLiteral("Pay"), true}));
    QCOMPARE(button.labels.at(1).source, LabelSource::ButtonValue);
    QVERIFY(!button.labels.at(1).whole);
    QVERIFY(!everyLabelSourceWhole(button));
    QVERIFY(button.inForm);
    QVERIFY(!button.native);
    QCOMPARE(button.fieldKind, FieldKind::None);
    QVERIFY(button.target.has_value());
    QVERIFY(button.target->sameOrigin);
    QCOMPARE(button.target->firstSegment, QStringLiteral("account"));
    QVERIFY(button.target->sensitive);
    QCOMPARE(button.target->pathConsequence, BrowserActionConsequence::Destructive);
    QVERIFY(!button.target->download);
    const ElementFacts field = capture->facts.value(QStringLiteral("c1.1"));
    QCOMPARE(field.fieldKind, FieldKind::Payment);
    QVERIFY(field.native);
    QVERIFY(!field.target);

    // Another origin, a download, a scheme that is not the web's, an unread URL.
    const auto read = [](bool sameOrigin, const QString &segment, bool sensitive,
                         BrowserActionConsequence consequence, bool download) {
        NavigationTarget summary{sameOrigin, segment, sensitive, consequence, download};
        // What names a consequence other than publishing or saving is consequential; a GET of
        // these addresses reads.
        summary.consequential = sensitive;
        summary.writes = false;
        return summary;
    };
    const struct
    {
        QString url;
        bool download;
        NavigationTarget expected;
    } targets[] = {
        {QStringLiteral("https://other.example.com/lesson/2"), false,
         read(false, QStringLiteral("lesson"), false, BrowserActionConsequence::Unknown, false)},
        {QStringLiteral("https://shop.acme-store.com:8443/lesson"), false,
         read(false, QStringLiteral("lesson"), false, BrowserActionConsequence::Unknown, false)},
        {QStringLiteral("https://shop.acme-store.com/files/report.pdf"), true,
         read(true, QStringLiteral("files"), false, BrowserActionConsequence::Unknown, true)},
        {QStringLiteral("https://shop.acme-store.com/"), false,
         read(true, QString(), false, BrowserActionConsequence::Unknown, false)},
        {QStringLiteral("https://shop.acme-store.com/Settings/Security"), false,
         read(true, QStringLiteral("Settings"), true, BrowserActionConsequence::SecuritySettings,
              false)},
        {QStringLiteral("javascript:void(0)"), false, NavigationTarget{}},
        {QString(), false, NavigationTarget{}},
    };
    for (const auto &t : targets) {
        QJsonObject link = collectorFacts(QString(), QString(), QStringLiteral("Go"), QString(),
                                          target(t.url, t.download));
        fakeAnswer.insert(QStringLiteral("facts"), QJsonArray{link, noteFacts()});
        const Result<Capture> linked = assemble(fakeAnswer, request(), TestOverrides());
        QVERIFY(linked.ok());
        QCOMPARE(linked->facts.size(), 2);
        QVERIFY2(linked->facts.value(QStringLiteral("c1.0")).target == t.expected,
                 qPrintable(t.url));
    }

    // A form that posts is a submission; a query that carries a token or an operation, or
    // signs out, says so; a method the collector never sends refuses the record.
    const struct
    {
        QString url;
        QString method;
        bool submission;
        BrowserActionConsequence query;
    } posted[] = {
        {QStringLiteral("https://shop.acme-store.com/w/index.php?title=X&action=submit"),
         QStringLiteral("post"), true, BrowserActionConsequence::Publication},
        {QStringLiteral("https://shop.acme-store.com/w/index.php?title=X&action=purge"),
         QStringLiteral("post"), true, BrowserActionConsequence::Destructive},
        {QStringLiteral("https://shop.acme-store.com/w/index.php?title=X&action=markpatrolled"),
         QStringLiteral("get"), false, BrowserActionConsequence::StateChange},
        {QStringLiteral("https://shop.acme-store.com/w/index.php?title=Special:UserLogout"),
         QStringLiteral("get"), false, BrowserActionConsequence::SignOut},
        {QStringLiteral("https://shop.acme-store.com/search"), QStringLiteral("get"), false,
         BrowserActionConsequence::Unknown},
        {QStringLiteral("https://shop.acme-store.com/search"), QStringLiteral("dialog"), false,
         BrowserActionConsequence::Unknown},
        {QStringLiteral("https://shop.acme-store.com/w/index.php?title=X&action=delete"),
         QStringLiteral("get"), false, BrowserActionConsequence::Destructive},
        {QStringLiteral("https://shop.acme-store.com/w/index.php?title=X&action=rollback&token=ab"),
         QStringLiteral("get"), false, BrowserActionConsequence::StateChange},
        {QStringLiteral("https://shop.acme-store.com/w/index.php?title=X&action=history"),
         QStringLiteral("get"), false, BrowserActionConsequence::Unknown},
    };
    for (const auto &t : posted) {
        QJsonObject button = collectorFacts(QString(), QString(), QStringLiteral("Go"), QString(),
                                            target(t.url, false, t.method));
        fakeAnswer.insert(QStringLiteral("facts"), QJsonArray{button, noteFacts()});
        const Result<Capture> sent = assemble(fakeAnswer, request(), TestOverrides());
        QVERIFY(sent.ok());
        const std::optional<NavigationTarget> summary =
            sent->facts.value(QStringLiteral("c1.0")).target;
        QVERIFY2(summary.has_value(), qPrintable(t.url));
        QCOMPARE(summary->submission, t.submission);
        QCOMPARE(consequenceString(summary->queryConsequence), consequenceString(t.query));
    }
    QJsonObject put = collectorFacts(
        QString(), QString(), QStringLiteral("Go"), QString(),
        target(QStringLiteral("https://shop.acme-store.com/"), false, QStringLiteral("put")));
    fakeAnswer.insert(QStringLiteral("facts"), QJsonArray{put, noteFacts()});
    const Result<Capture> refused = assemble(fakeAnswer, request(), TestOverrides());
    QVERIFY(refused.ok());
    QVERIFY(refused->facts.isEmpty());
}

void TestCaptureAssembly::anInvalidObservationIsRefused()
{
    // A title above its bound, an element without a role, a duplicate ref.
    QJsonArray elements = answer().value(QStringLiteral("elements")).toArray();
    QJsonObject roleless = elements.at(0).toObject();
    roleless.remove(QStringLiteral("role"));
    QJsonArray duplicate{elements.at(0), elements.at(0)};
    for (const QJsonObject &bad :
         {with(answer(), QStringLiteral("title"), QString(4000, u'x')),
          with(answer(), QStringLiteral("elements"), QJsonArray{roleless, elements.at(1)}),
          with(answer(), QStringLiteral("elements"), duplicate)}) {
        const Result<Capture> capture = assemble(bad, request(), TestOverrides());
        QVERIFY(!capture.ok());
        QCOMPARE(capture.error(), Error::fromReason(ReasonCode::OutputInvalid));
    }
    // A page URL outside the public web is refused too (the default overrides trust nothing).
    Request local = request();
    local.url = QUrl(QStringLiteral("https://localhost/cart"));
    QVERIFY(!assemble(answer(), local, TestOverrides()).ok());
}

void TestCaptureAssembly::focusedReadsKeepTheirRegionText()
{
    const QString regionText = QStringLiteral("Order 42 shipped. Tracking follows.");
    BrowserObservation withRegion = sample();
    withRegion.regions = {RegionRecord{QStringLiteral("g1.0"), QStringLiteral("status"),
                                       QStringLiteral("Shipping"), 0, QStringLiteral("Shipped"),
                                       false}};
    withRegion.regionCoverage = RegionCoverage{};
    const QJsonObject regions = withRegion.toJson();
    QJsonObject focused = with(answer(), QStringLiteral("text"), regionText);
    focused.insert(QStringLiteral("regions"), regions.value(QStringLiteral("regions")));
    focused.insert(QStringLiteral("region_coverage"),
                   regions.value(QStringLiteral("region_coverage")));
    focused.insert(QStringLiteral("focus"),
                   QJsonObject{{QStringLiteral("region_ref"), QStringLiteral("g1.0")}});
    Request r = request();
    r.focusRequested = true;
    const Result<Capture> first = assemble(focused, r, TestOverrides());
    QVERIFY2(first.ok(), first.ok() ? "" : qPrintable(first.error().code));
    QCOMPARE(first->focus,
             std::optional<Focus>(Focus{QStringLiteral("g1.0"), regionText.toUtf8()}));
    QCOMPARE(first->observation.text, regionText);

    // A text continuation reads the same text from its offset...
    r.focusTextOffset = 9;
    r.previousFocusText = regionText.toUtf8();
    const Result<Capture> later = assemble(focused, r, TestOverrides());
    QVERIFY(later.ok());
    QCOMPARE(later->observation.text, QStringLiteral("shipped. Tracking follows."));
    // ...and is page_changed once the region's text is another.
    r.previousFocusText = QByteArrayLiteral("Order 41 shipped.");
    QCOMPARE(assemble(focused, r, TestOverrides()).error(),
             Error::fromReason(ReasonCode::PageChanged));
    // An offset past the text, or a focus the collector did not answer, is invalid output.
    r.previousFocusText = regionText.toUtf8();
    r.focusTextOffset = int(regionText.size()) + 1;
    QCOMPARE(assemble(focused, r, TestOverrides()).error(),
             Error::fromReason(ReasonCode::OutputInvalid));
    Request unanswered = request();
    unanswered.focusRequested = true;
    QCOMPARE(assemble(answer(), unanswered, TestOverrides()).error(),
             Error::fromReason(ReasonCode::OutputInvalid));
}

void TestCaptureAssembly::draftVerdicts()
{
    Request r = request();
    r.draft = QStringLiteral("Thanks for the quick delivery");
    // Confirmed: echoed, and kept.
    const Result<Capture> confirmed = assemble(
        with(answer(), QStringLiteral("draft"), QStringLiteral("confirmed")), r, TestOverrides());
    QVERIFY(confirmed.ok());
    QCOMPARE(confirmed->observation.confirmedDraft, r.draft);
    QCOMPARE(confirmed->nextDraft, std::optional<std::optional<QString>>(r.draft));
    // Outside a focused region: kept, not shown.
    const Result<Capture> outside = assemble(
        with(answer(), QStringLiteral("draft"), QStringLiteral("outside")), r, TestOverrides());
    QVERIFY(outside.ok());
    QVERIFY(!outside->observation.confirmedDraft);
    QCOMPARE(outside->nextDraft, std::optional<std::optional<QString>>(r.draft));
    // Anything else ends the receipt for good.
    for (const QJsonValue &verdict : {QJsonValue(QStringLiteral("changed")), QJsonValue(true),
                                      QJsonValue(QJsonValue::Undefined)}) {
        const Result<Capture> ended =
            assemble(with(answer(), QStringLiteral("draft"), verdict), r, TestOverrides());
        QVERIFY(ended.ok());
        QVERIFY(!ended->observation.confirmedDraft);
        QCOMPARE(ended->nextDraft, std::optional<std::optional<QString>>(std::optional<QString>()));
    }
    // No receipt checked: nothing to carry on.
    const Result<Capture> none =
        assemble(with(answer(), QStringLiteral("draft"), QStringLiteral("confirmed")), request(),
                 TestOverrides());
    QVERIFY(none.ok());
    QVERIFY(!none->nextDraft);
}

void TestCaptureAssembly::theActionTravelsWithItsCapture()
{
    Request r = request();
    r.action = ActionOutcome{QStringLiteral("click"), true, std::nullopt};
    r.readiness = Readiness::DomQuiet;
    const Result<Capture> capture = assemble(answer(), r, TestOverrides());
    QVERIFY(capture.ok());
    QCOMPARE(capture->observation.action, r.action);
    QCOMPARE(capture->observation.readiness, std::optional<Readiness>(Readiness::DomQuiet));
}

// A continuation of an unchanged page claims text_unchanged; the claim needs the continued
// capture's text and no text of its own.
void TestCaptureAssembly::unchangedTextIsPutBack()
{
    const CapturedText kept{QJsonValue(QStringLiteral("kept")), QJsonObject{}};
    QJsonObject claim{{QStringLiteral("ok"), true}, {QStringLiteral("text_unchanged"), true}};
    QVERIFY(!restoreUnchangedText(claim, std::nullopt));
    QVERIFY(restoreUnchangedText(claim, kept));
    QCOMPARE(claim.value(QStringLiteral("text")).toString(), QStringLiteral("kept"));
    QVERIFY(!claim.contains(QStringLiteral("text_unchanged")));
    QJsonObject mixed{{QStringLiteral("text_unchanged"), true},
                      {QStringLiteral("text"), QStringLiteral("own")}};
    QVERIFY(!restoreUnchangedText(mixed, kept));
    QJsonObject falseClaim{{QStringLiteral("text_unchanged"), false}};
    QVERIFY(!restoreUnchangedText(falseClaim, kept));
    QJsonObject plain{{QStringLiteral("text"), QStringLiteral("own")}};
    QVERIFY(restoreUnchangedText(plain, kept));
    QCOMPARE(plain.value(QStringLiteral("text")).toString(), QStringLiteral("own"));
}

QTEST_GUILESS_MAIN(TestCaptureAssembly)
#include "tst_captureassembly.moc"
