// What a task grant or ordinary interaction may type without a fresh approval.

#include "domain/authority/GrantCoverage.h"

#include <QJsonDocument>
#include <QTest>

Q_DECLARE_METATYPE(veetbot::ActRequest)
Q_DECLARE_METATYPE(veetbot::ElementFacts)

using namespace veetbot;
using namespace veetbot::GrantCoverage;

class TestGrantCoverage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void typedText_data();
    void typedText();
    void acts_data();
    void acts();
    void constraintsAreStrict();
    void theFenceKeepsDocumentsOnTheOriginsSafePaths();
    void aStandingGrantsRecheckIsRoutineOnly();
    void aTaskGrantsConstraintKeepsToItsPrefix();
};

void TestGrantCoverage::typedText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("refusal"); // empty: covered
    QTest::newRow("a search") << QStringLiteral("blue running shoes") << QString();
    QTest::newRow("empty") << QString() << QString();
    QTest::newRow("three digits") << QStringLiteral("size 425") << QString();
    QTest::newRow("digits apart") << QStringLiteral("1 2 3 4 5") << QString();
    QTest::newRow("a year") << QStringLiteral("in 2026") << QStringLiteral("digit_run");
    QTest::newRow("a code") << QStringLiteral("482913") << QStringLiteral("digit_run");
    QTest::newRow("arabic-indic digits")
        << QString::fromUtf8("\u0664\u0665\u0666\u0667") << QStringLiteral("digit_run");
    QTest::newRow("fullwidth digits")
        << QString::fromUtf8("\uFF11\uFF12\uFF13\uFF14") << QStringLiteral("digit_run");
    QTest::newRow("mathematical digits")
        << QString::fromUtf8("\U0001D7CF\U0001D7D0\U0001D7D1\U0001D7D2")
        << QStringLiteral("digit_run");
    QTest::newRow("an email") << QStringLiteral("me@example.org")
                              << QStringLiteral("email_or_handle");
    QTest::newRow("a handle") << QStringLiteral("@someone") << QStringLiteral("email_or_handle");
    QTest::newRow("fullwidth at") << QString::fromUtf8("me\uFF20example")
                                  << QStringLiteral("email_or_handle");
    QTest::newRow("a link") << QStringLiteral("see https://evil.example/x")
                            << QStringLiteral("address");
    QTest::newRow("another scheme") << QStringLiteral("ftp://x") << QStringLiteral("address");
    QTest::newRow("www") << QStringLiteral("go to www.example.org") << QStringLiteral("address");
    QTest::newRow("WWW") << QStringLiteral("WWW.EXAMPLE.ORG") << QStringLiteral("address");
    QTest::newRow("a key") << QStringLiteral("token aB3dE5fG7hJ9kL1mN3pQ5rS7")
                           << QStringLiteral("credential_shape");
    QTest::newRow("a JWT") << QStringLiteral(
                                  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl")
                           << QStringLiteral("credential_shape");
    QTest::newRow("bearer") << QStringLiteral("Bearer abcdefghijklmnopqrstu")
                            << QStringLiteral("credential_shape");
    QTest::newRow("256 characters") << QString(256, u'a') << QString();
    QTest::newRow("257 characters") << QString(257, u'a') << QStringLiteral("too_long");
    // Characters are code points: 256 emoji are 512 UTF-16 units and still covered.
    QString emoji;
    for (int i = 0; i < 256; ++i)
        emoji += QString::fromUtf8("\U0001F600");
    QTest::newRow("256 emoji") << emoji << QString();
    QTest::newRow("257 emoji") << emoji + QString::fromUtf8("\U0001F600")
                               << QStringLiteral("too_long");
    // The first rule broken is the one named.
    QTest::newRow("long email") << QString(300, u'a') + QLatin1Char('@')
                                << QStringLiteral("too_long");
}

void TestGrantCoverage::typedText()
{
    QFETCH(QString, text);
    QFETCH(QString, refusal);
    const std::optional<TextRefusal> refused = refuseTypedText(text);
    QCOMPARE(refused ? textRefusalString(*refused) : QString(), refusal);
}

namespace {
ElementFacts named(const QString &role, const QString &name, FieldKind kind = FieldKind::None,
                   bool native = false)
{
    ElementFacts facts;
    facts.role = role;
    facts.accessibleName = name;
    facts.visibleText = name;
    facts.fieldKind = kind;
    facts.native = native;
    return facts;
}
// `consequential`: the path names a consequence or a sign-in area (it is sensitive then too);
// a sensitive path that is not consequential is an administration, settings or account area.
NavigationTarget target(bool sameOrigin, const QString &segment, bool sensitive = false,
                        bool download = false, bool consequential = false)
{
    NavigationTarget summary{sameOrigin, segment, sensitive || consequential,
                             BrowserActionConsequence::Unknown, download};
    summary.consequential = consequential;
    summary.writes = false;
    return summary;
}
ActRequest click()
{
    return ActRequest::click(QStringLiteral("r"), QStringLiteral("a.1")).value();
}
ActRequest typed(const QString &text)
{
    return ActRequest::type(QStringLiteral("r"), QStringLiteral("a.1"), text).value();
}
ActRequest pressed(ActRequest::Key key)
{
    return ActRequest::press(QStringLiteral("r"), QStringLiteral("a.1"), key).value();
}
} // namespace

void TestGrantCoverage::acts_data()
{
    QTest::addColumn<ActRequest>("request");
    QTest::addColumn<ElementFacts>("facts");
    QTest::addColumn<QString>("page");
    QTest::addColumn<QString>("refusal"); // empty: covered
    const QString shop = QStringLiteral("https://shop.example/catalogue/shoes");
    const ElementFacts more = named(QStringLiteral("button"), QStringLiteral("Show more"));
    const ElementFacts search =
        named(QStringLiteral("searchbox"), QStringLiteral("Search"), FieldKind::Search, true);

    QTest::newRow("routine button") << click() << more << shop << QString();
    QTest::newRow("unknown button")
        << click() << named(QStringLiteral("button"), QStringLiteral("Frobnicate")) << shop
        << QString();
    QTest::newRow("delete button")
        << click() << named(QStringLiteral("button"), QStringLiteral("Delete account")) << shop
        << QStringLiteral("named_consequence");
    QTest::newRow("lookalike delete")
        << click() << named(QStringLiteral("button"), QString::fromUtf8("D\xd0\xb5lete account"))
        << shop << QStringLiteral("named_consequence");
    ElementFacts inDialog = more;
    inDialog.dialogName = QStringLiteral("Close your account");
    QTest::newRow("routine word in a consequential dialog")
        << click() << inDialog << shop << QStringLiteral("named_consequence");
    ElementFacts disabled = more;
    disabled.disabled = true;
    QTest::newRow("disabled") << click() << disabled << shop << QStringLiteral("disabled");
    QTest::newRow("unnamed") << click() << named(QStringLiteral("button"), QStringLiteral("  "))
                             << shop << QStringLiteral("unnamed");
    ElementFacts cut = more;
    cut.labels = {LabelText{LabelSource::Title, QStringLiteral("Show"), false}};
    QTest::newRow("a label not whole") << click() << cut << shop << QStringLiteral("partial_label");
    ElementFacts cutText = more;
    cutText.visibleTextWhole = false;
    QTest::newRow("visible text not whole")
        << click() << cutText << shop << QStringLiteral("partial_label");
    QTest::newRow("type into a search field")
        << typed(QStringLiteral("red shoes")) << search << shop << QString();
    QTest::newRow("type into a text area")
        << typed(QStringLiteral("size 42 please"))
        << named(QStringLiteral("textbox"), QStringLiteral("Notes"), FieldKind::MultiLine, true)
        << shop << QString();
    QTest::newRow("type into an email field")
        << typed(QStringLiteral("x"))
        << named(QStringLiteral("textbox"), QStringLiteral("Contact"), FieldKind::Email, true)
        << shop << QStringLiteral("field_kind");
    QTest::newRow("type into an editable region")
        << typed(QStringLiteral("x"))
        << named(QStringLiteral("textbox"), QStringLiteral("Notes"), FieldKind::EditableRegion)
        << shop << QStringLiteral("field_kind");
    QTest::newRow("type into a page-built box")
        << typed(QStringLiteral("x"))
        << named(QStringLiteral("textbox"), QStringLiteral("Search"), FieldKind::Search, false)
        << shop << QStringLiteral("field_kind");
    QTest::newRow("type a code") << typed(QStringLiteral("482913")) << search << shop
                                 << QStringLiteral("typed_text");
    QTest::newRow("type an address") << typed(QStringLiteral("me@example.org")) << search << shop
                                     << QStringLiteral("typed_text");
    QTest::newRow("payment field")
        << typed(QStringLiteral("x"))
        << named(QStringLiteral("textbox"), QStringLiteral("Card"), FieldKind::Payment, true)
        << shop << QStringLiteral("named_consequence"); // the field kind reads as a payment
    QTest::newRow("identity field")
        << typed(QStringLiteral("x"))
        << named(QStringLiteral("textbox"), QStringLiteral("Street"), FieldKind::Identity, true)
        << shop << QStringLiteral("sensitive_field");
    QTest::newRow("file input") << click()
                                << named(QStringLiteral("button"), QStringLiteral("Choose"),
                                         FieldKind::File, true)
                                << shop << QStringLiteral("named_consequence"); // file transfer
    QTest::newRow("select in a native select")
        << ActRequest::select(QStringLiteral("r"), QStringLiteral("a.1"), QStringLiteral("Red"))
               .value()
        << named(QStringLiteral("combobox"), QStringLiteral("Colour"), FieldKind::Select, true)
        << shop << QString();
    QTest::newRow("select in a page-built list")
        << ActRequest::select(QStringLiteral("r"), QStringLiteral("a.1"), QStringLiteral("Red"))
               .value()
        << named(QStringLiteral("listbox"), QStringLiteral("Colour"), FieldKind::None, false)
        << shop << QStringLiteral("field_kind");
    QTest::newRow("check a native box")
        << ActRequest::check(QStringLiteral("r"), QStringLiteral("a.1"), true).value()
        << named(QStringLiteral("checkbox"), QStringLiteral("Gift wrap"), FieldKind::Checkbox, true)
        << shop << QString();
    QTest::newRow("check a page-built switch")
        << ActRequest::check(QStringLiteral("r"), QStringLiteral("a.1"), true).value()
        << named(QStringLiteral("switch"), QStringLiteral("Gift wrap")) << shop
        << QStringLiteral("field_kind");
    QTest::newRow("arrow on a radio")
        << pressed(ActRequest::Key::ArrowDown)
        << named(QStringLiteral("radio"), QStringLiteral("Small"), FieldKind::Radio, true) << shop
        << QStringLiteral("choice_key");
    QTest::newRow("arrow on a page-built tab")
        << pressed(ActRequest::Key::ArrowRight)
        << named(QStringLiteral("tab"), QStringLiteral("Details")) << shop
        << QStringLiteral("choice_key");
    QTest::newRow("escape on a button")
        << pressed(ActRequest::Key::Escape) << more << shop << QString();
    ElementFacts link = named(QStringLiteral("link"), QStringLiteral("Shoes"));
    link.target = target(true, QStringLiteral("catalogue"));
    QTest::newRow("same-origin link") << click() << link << shop << QString();
    link.target = target(false, QStringLiteral("catalogue"));
    QTest::newRow("link off the origin") << click() << link << shop << QStringLiteral("target");
    link.target = target(true, QStringLiteral("admin"), true);
    QTest::newRow("link into an administration area") << click() << link << shop << QString();
    link.target = target(true, QStringLiteral("login"), true, false, true);
    QTest::newRow("link to a consequential path")
        << click() << link << shop << QStringLiteral("target");
    link.target = target(true, QStringLiteral("files"), false, true);
    QTest::newRow("download link")
        << click() << link << shop << QStringLiteral("named_consequence"); // file transfer
    ElementFacts inForm = more;
    inForm.inForm = true;
    QTest::newRow("a click in a form without its target")
        << click() << inForm << shop << QStringLiteral("target");
    QTest::newRow("enter in a form without its target")
        << pressed(ActRequest::Key::Enter) << inForm << shop << QStringLiteral("target");
    QTest::newRow("tab in a form") << pressed(ActRequest::Key::Tab) << inForm << shop << QString();
    inForm.target = target(true, QStringLiteral("catalogue"));
    QTest::newRow("a submission to the origin") << click() << inForm << shop << QString();
    QTest::newRow("a page on a sensitive path")
        << click() << more << QStringLiteral("https://shop.example/settings/security")
        << QStringLiteral("page");
    QTest::newRow("a page on an encoded sensitive path")
        << click() << more << QStringLiteral("https://shop.example/%6Cogin/x")
        << QStringLiteral("page");
    QTest::newRow("a page in an administration area")
        << click() << more << QStringLiteral("https://shop.example/%61dmin/x") << QString();
    QTest::newRow("a page whose query writes")
        << click() << more
        << QStringLiteral("https://shop.example/w/index.php?title=X&action=delete")
        << QStringLiteral("page");
}

void TestGrantCoverage::acts()
{
    QFETCH(ActRequest, request);
    QFETCH(ElementFacts, facts);
    QFETCH(QString, page);
    QFETCH(QString, refusal);
    const std::optional<ActRefusal> refused = refuseAct(request, facts, QUrl(page));
    QCOMPARE(refused ? actRefusalString(*refused) : QString(), refusal);
}

void TestGrantCoverage::constraintsAreStrict()
{
    const DispatchConstraint ordinary;
    QCOMPARE(DispatchConstraint::fromJson(ordinary.toJson()), std::optional(ordinary));
    const DispatchConstraint grant{DispatchConstraint::Authority::TaskGrant,
                                   QStringLiteral("lesson")};
    QCOMPARE(DispatchConstraint::fromJson(grant.toJson()), std::optional(grant));
    const DispatchConstraint standing{DispatchConstraint::Authority::StandingGrant, QString()};
    QCOMPARE(DispatchConstraint::fromJson(standing.toJson()), std::optional(standing));
    const auto parse = [](const char *json) {
        return DispatchConstraint::fromJson(QJsonDocument::fromJson(json).object());
    };
    for (const char *bad :
         {R"({})", R"({"authority":"owner"})",
          R"({"authority":"ordinary_interaction","prefix":"a"})", R"({"authority":"task_grant"})",
          R"({"authority":"task_grant","prefix":""})",
          R"({"authority":"task_grant","prefix":"a/b"})",
          R"({"authority":"task_grant","prefix":1})",
          R"({"authority":"ordinary_interaction","x":1})",
          R"({"authority":"standing_grant","prefix":"a"})"})
        QVERIFY2(!parse(bad), bad);
    QVERIFY(!DispatchConstraint::fromJson(QJsonValue(QStringLiteral("ordinary_interaction"))));
    QVERIFY(parse(R"({"authority":"task_grant","prefix":"x"})"));
    QVERIFY(!DispatchConstraint::fromJson(
        QJsonObject{{QStringLiteral("authority"), QStringLiteral("task_grant")},
                    {QStringLiteral("prefix"), QString(65, u'a')}}));
}

void TestGrantCoverage::theFenceKeepsDocumentsOnTheOriginsSafePaths()
{
    const DispatchConstraint ordinary;
    const QUrl page(QStringLiteral("https://shop.example/catalogue"));
    QVERIFY(
        ordinary.allowsDocument(QUrl(QStringLiteral("https://shop.example/catalogue/2")), page));
    QVERIFY(ordinary.allowsDocument(QUrl(QStringLiteral("https://shop.example/")), page));
    QVERIFY(!ordinary.allowsDocument(QUrl(QStringLiteral("https://other.example/")), page));
    QVERIFY(!ordinary.allowsDocument(QUrl(QStringLiteral("http://shop.example/")), page));
    QVERIFY(!ordinary.allowsDocument(QUrl(QStringLiteral("https://shop.example:8443/")), page));
    // Reading in an administration area is ordinary interaction's (the write guard judges the
    // document); a standing grant keeps out of it.
    QVERIFY(ordinary.allowsDocument(QUrl(QStringLiteral("https://shop.example/admin/x")), page));
    const DispatchConstraint standing{DispatchConstraint::Authority::StandingGrant, QString()};
    QVERIFY(!standing.allowsDocument(QUrl(QStringLiteral("https://shop.example/admin/x")), page));
    QVERIFY(
        !ordinary.allowsDocument(QUrl(QStringLiteral("https://shop.example/a/checkout")), page));
    QVERIFY(!ordinary.allowsDocument(QUrl(QStringLiteral("https://shop.example/%6Cogin")), page));
    QVERIFY(!ordinary.allowsDocument(
        QUrl(QStringLiteral("https://shop.example/w/index.php?action=delete")), page));
}

void TestGrantCoverage::aStandingGrantsRecheckIsRoutineOnly()
{
    // The live recheck of a standing grant: what ordinary interaction covers, and only when
    // every label reads the same routine word.
    const DispatchConstraint standing{DispatchConstraint::Authority::StandingGrant, QString()};
    const DispatchConstraint ordinary;
    const QUrl page(QStringLiteral("https://shop.example/catalogue"));
    const ActRequest click = *ActRequest::click(QStringLiteral("r1"), QStringLiteral("e1"));
    ElementFacts next{QStringLiteral("button"), QStringLiteral("Next"), {}, {}, {}, {}};
    next.visibleText = QStringLiteral("Next");
    QVERIFY(standing.covers(click, next, page));
    ElementFacts mixed = next;
    mixed.visibleText = QStringLiteral("Continue");
    QVERIFY(ordinary.covers(click, mixed, page));
    QVERIFY(!standing.covers(click, mixed, page));
    ElementFacts unknown = next;
    unknown.accessibleName = QStringLiteral("Lemon");
    unknown.visibleText = QStringLiteral("Lemon");
    QVERIFY(ordinary.covers(click, unknown, page));
    QVERIFY(!standing.covers(click, unknown, page));
}

void TestGrantCoverage::aTaskGrantsConstraintKeepsToItsPrefix()
{
    const DispatchConstraint grant{DispatchConstraint::Authority::TaskGrant,
                                   QStringLiteral("lesson")};
    const QUrl page(QStringLiteral("https://school.example/lesson/3"));
    QVERIFY(grant.allowsDocument(QUrl(QStringLiteral("https://school.example/lesson/4")), page));
    QVERIFY(grant.allowsDocument(QUrl(QStringLiteral("https://school.example/lesson")), page));
    QVERIFY(!grant.allowsDocument(QUrl(QStringLiteral("https://school.example/lessons")), page));
    QVERIFY(!grant.allowsDocument(QUrl(QStringLiteral("https://school.example/")), page));
    const ElementFacts more = named(QStringLiteral("button"), QStringLiteral("Show more"));
    QVERIFY(grant.covers(click(), more, page));
    QVERIFY(!grant.covers(click(), more, QUrl(QStringLiteral("https://school.example/forum"))));
    ElementFacts link = named(QStringLiteral("link"), QStringLiteral("Next"));
    link.target = target(true, QStringLiteral("lesson"));
    QVERIFY(grant.covers(click(), link, page));
    link.target = target(true, QStringLiteral("forum"));
    QVERIFY(!grant.covers(click(), link, page));
    // Ordinary interaction has no prefix, and the same coverage rules.
    QVERIFY(DispatchConstraint{}.covers(click(), link, page));
    QVERIFY(!DispatchConstraint{}.covers(
        click(), named(QStringLiteral("button"), QStringLiteral("Delete account")), page));
}

QTEST_GUILESS_MAIN(TestGrantCoverage)
#include "tst_grantcoverage.moc"
