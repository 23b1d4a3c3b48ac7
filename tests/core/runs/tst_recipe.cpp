// Reviewed workflow recipes, format 1: the YAML reader's bounds (size, depth, nodes with aliases
// counted where used, scalar length, tags, duplicate and non-scalar keys, one document, NUL
// bytes, and inputs on which yaml-cpp itself would never end), every rule of the format with the
// code it refuses with, the shipped recipes, the JSON form read back as YAML, intent matching,
// the origins a recipe serves, and the owner's private recipe directory. No error ever repeats
// the text it refused.

#include "domain/web/Origin.h"
#include "domain/web/TestOverrides.h"
#include "runs/Recipe.h"
#include "runs/RecipeCatalog.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

using namespace veetbot;

namespace {

// In every text a row refuses: no error may ever carry it.
constexpr char kMarker[] = "zqx";

const QString kInvalid = QStringLiteral("recipe.invalid");
const QString kTooLarge = QStringLiteral("recipe.too_large");

TestOverrides demoOverrides()
{
    Result<TestOverrides> overrides =
        TestOverrides::parseResolve(QStringLiteral("demo.veetbot.test=127.0.0.1"));
    if (!overrides)
        qFatal("the test's overrides do not parse");
    return std::move(overrides).value();
}

// How many recipes are shipped (the tests of private directories count on top of them).
int shippedCount()
{
    return int(RecipeCatalog::shipped(demoOverrides()).recipes().size());
}

Origin originOf(const QString &text, const TestOverrides &overrides)
{
    Result<Origin> origin = Origin::parse(text, overrides);
    if (!origin)
        qFatal("a test origin does not parse");
    return std::move(origin).value();
}

// Reads on a thread of its own and ends the test program if no answer came within five
// seconds: a reader that never returns (yaml-cpp's LoadAll on ",") grows without bound, and
// must fail this test at once rather than when the machine runs out of memory.
Result<QJsonObject> readPromptly(const QByteArray &yaml)
{
    std::packaged_task<Result<QJsonObject>()> task(
        [yaml] { return RecipeCatalog::readDocument(yaml); });
    std::future<Result<QJsonObject>> answer = task.get_future();
    std::thread reader(std::move(task));
    if (answer.wait_for(std::chrono::seconds(5)) != std::future_status::ready)
        qFatal("the YAML reader did not end within five seconds");
    reader.join();
    return answer.get();
}

// A valid recipe document with some of its top-level fields changed: each change is a key and
// its value as YAML text (a flow value on one line); an empty text leaves the key out. Keys the
// base has not are added at the end.
QByteArray recipeWith(const QList<QPair<QString, QString>> &changes)
{
    QList<QPair<QString, QString>> fields{
        {QStringLiteral("format"), QStringLiteral("1")},
        {QStringLiteral("id"), QStringLiteral("acme.test-recipe")},
        {QStringLiteral("version"), QStringLiteral("1")},
        {QStringLiteral("title"), QStringLiteral("A test recipe")},
        {QStringLiteral("origin"), QStringLiteral("https://demo.veetbot.test")},
        {QStringLiteral("intents"), QStringLiteral("[Do the test thing]")},
        {QStringLiteral("steps"), QStringLiteral("[{navigate: /account}]")},
    };
    for (const auto &change : changes) {
        auto it = std::find_if(fields.begin(), fields.end(),
                               [&](const auto &field) { return field.first == change.first; });
        if (it == fields.end())
            fields.append(change);
        else
            it->second = change.second;
    }
    QByteArray text;
    for (const auto &[key, value] : fields) {
        if (!value.isEmpty())
            text += key.toUtf8() + ": " + value.toUtf8() + '\n';
    }
    return text;
}

QByteArray withField(const char *key, const QString &value)
{
    return recipeWith({{QLatin1String(key), value}});
}

QByteArray withSteps(const QString &steps)
{
    return withField("steps", QLatin1Char('[') + steps + QLatin1Char(']'));
}

// A navigate step and then one act step with this body.
QByteArray withAct(const QString &body)
{
    return withSteps(QStringLiteral("{navigate: /account}, {act: {") + body + QStringLiteral("}}"));
}

const QString kDone = QStringLiteral("postcondition: {completion: {kind: text, text: Done}}");
const QString kButton = QStringLiteral("target: {role: button, name: Save}");

QByteArray withClickPostcondition(const QString &postcondition)
{
    return withAct(QStringLiteral("kind: click, ") + kButton + QStringLiteral(", postcondition: ") +
                   postcondition);
}

QByteArray withExtract(const QString &body)
{
    return withSteps(QStringLiteral("{navigate: /account}, {extract: {") + body +
                     QStringLiteral("}}"));
}

QString repeated(const QString &item, int count, const QString &separator = QStringLiteral(", "))
{
    QStringList items;
    for (int i = 0; i < count; ++i)
        items << item;
    return items.join(separator);
}

QByteArray shippedText(const QString &file)
{
    QFile resource(QStringLiteral(":/veetbot/recipes/") + file);
    if (!resource.open(QIODevice::ReadOnly))
        qFatal("a shipped recipe is missing from the resources");
    return resource.readAll();
}

// The recipe read back from its JSON form, as `veetbot recipes show --json` prints it.
Result<Recipe> readBack(const Recipe &recipe, const TestOverrides &overrides)
{
    const QByteArray json = QJsonDocument(recipe.toJson()).toJson(QJsonDocument::Compact);
    return RecipeCatalog::parse(json, recipe.source, overrides);
}

bool writeFile(const QString &path, const QByteArray &bytes, mode_t mode)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return false;
    file.close();
    return ::chmod(QFile::encodeName(path).constData(), mode) == 0;
}

QByteArray privateRecipe(const QString &id, const QString &intent,
                         const QString &origin = QStringLiteral("https://demo.veetbot.test"))
{
    return recipeWith({{QStringLiteral("id"), id},
                       {QStringLiteral("origin"), origin},
                       {QStringLiteral("intents"), QLatin1Char('[') + intent + QLatin1Char(']')}});
}

} // namespace

class RecipeTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readerBounds_data();
    void readerBounds();
    void readsScalarsAsText();
    void accepted_data();
    void accepted();
    void refused_data();
    void refused();
    void schemaTakesRowsAndFailureTexts();
    void shippedRecipesParse();
    void shippedRecipesNeedTheirTestHost();
    void jsonFormReadsBack();
    void normalizedIntent_data();
    void normalizedIntent();
    void selectMatchesTheWholeRequest_data();
    void selectMatchesTheWholeRequest();
    void selectRefusesTwoMatches();
    void serves_data();
    void serves();
    void urlOfKeepsThePathAsWritten_data();
    void urlOfKeepsThePathAsWritten();
    void referenceAndPlannedCalls();
    void errorCodesAreFixed();
    void privateRecipesLoad();
    void privateFileMustBePrivate();
    void privateDirectoryMustBePrivate_data();
    void privateDirectoryMustBePrivate();
    void symlinkedFileRefused();
    void fifoRefusedWithoutBlocking();
    void privateRecipeCannotTakeATakenId();
    void missingDirectoryIsNoError();
    void tooLargeFileRefused();
    void invalidFileRefusedAlone();
    void atMostSixtyFourPrivateRecipes();
    void defaultDirectory();
};

void RecipeTest::readerBounds_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("code");    // empty: accepted
    QTest::addColumn<QString>("message"); // empty: any message of the code
    const auto ok = [](const char *name, const QByteArray &yaml) {
        QTest::newRow(name) << yaml << QString() << QString();
    };
    const auto refused = [](const char *name, const QByteArray &yaml,
                            const QString &code = kInvalid, const QString &message = QString()) {
        QTest::newRow(name) << yaml << code << message;
    };
    const QString nodes = QStringLiteral(
        "A recipe document has at most 2,048 nodes, aliases counted where they are used.");
    const QString depth = QStringLiteral("A recipe document nests maps and lists at most 7 deep.");
    const QString scalar =
        QStringLiteral("A recipe document's values are at most 1,024 UTF-16 units.");

    ok("a map", "a: b\n");
    ok("a flow map", "{a: b}");
    ok("quoted scalars", "a: 'zqx'\nb: \"zqx\"\n");
    ok("the non-specific tag", "a: ! zqx\n");
    ok("an explicit document", "--- \na: b\n...\n");
    ok("an anchored value used again", "a: &v zqx\nb: *v\n");
    ok("an empty flow map and list", "a: {}\nb: []\n");

    // Depth: the top map is 1; scalars add none.
    ok("depth 7 in flow", "a: [[[[[[zqx]]]]]]\n");
    refused("depth 8 in flow", "a: [[[[[[[zqx]]]]]]]\n", kInvalid, depth);
    ok("depth 7 in blocks", "a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g: zqx\n");
    refused("depth 8 in blocks", "a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g:\n       h: zqx\n",
            kInvalid, depth);
    refused("a deep flow nest", QByteArray(3000, '[') + QByteArray(3000, ']'));

    // Nodes: the map, its key, the list and its items.
    ok("2,048 nodes", "a: [" + repeated(QStringLiteral("x"), 2045).toUtf8() + "]\n");
    refused("2,049 nodes", "a: [" + repeated(QStringLiteral("x"), 2046).toUtf8() + "]\n", kInvalid,
            nodes);
    refused("aliases counted where used",
            "a: &x [" + repeated(QStringLiteral("x"), 1000).toUtf8() + "]\nb: [*x, *x]\n", kInvalid,
            nodes);
    refused("a billion laughs within the depth",
            "a: &a [zqx, zqx, zqx, zqx, zqx, zqx, zqx, zqx, zqx, zqx]\n"
            "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
            "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
            "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
            kInvalid, nodes);
    refused("the classic billion laughs",
            "l1: &l1 [zqx, zqx, zqx, zqx, zqx, zqx, zqx, zqx, zqx]\n"
            "l2: &l2 [*l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1]\n"
            "l3: &l3 [*l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2]\n"
            "l4: &l4 [*l3, *l3, *l3, *l3, *l3, *l3, *l3, *l3, *l3]\n"
            "l5: &l5 [*l4, *l4, *l4, *l4, *l4, *l4, *l4, *l4, *l4]\n"
            "l6: &l6 [*l5, *l5, *l5, *l5, *l5, *l5, *l5, *l5, *l5]\n"
            "l7: &l7 [*l6, *l6, *l6, *l6, *l6, *l6, *l6, *l6, *l6]\n"
            "l8: &l8 [*l7, *l7, *l7, *l7, *l7, *l7, *l7, *l7, *l7]\n"
            "l9: [*l8, *l8, *l8, *l8, *l8, *l8, *l8, *l8, *l8]\n",
            kInvalid, nodes);

    // Scalars, in UTF-16 units.
    ok("a scalar of 1,024 units", "a: " + QByteArray(1024, 'x') + '\n');
    refused("a scalar of 1,025 units", "a: zqx" + QByteArray(1022, 'x') + '\n', kInvalid, scalar);
    // yaml-cpp itself refuses an implicit key beyond 1,024 characters; an explicit one is ours.
    refused("a key of 1,025 units", "? zqx" + QByteArray(1022, 'x') + "\n: b\n", kInvalid, scalar);
    refused("an implicit key of 1,025 units", "zqx" + QByteArray(1022, 'x') + ": b\n");
    ok("1,024 units of two UTF-8 bytes", "a: " + QStringLiteral("é").repeated(1024).toUtf8());
    ok("512 characters beyond the BMP", "a: " + QStringLiteral("😀").repeated(512).toUtf8());
    refused("513 characters beyond the BMP", "a: " + QStringLiteral("😀").repeated(513).toUtf8(),
            kInvalid, scalar);

    // Size.
    ok("64 KiB", "a: b\n#" + QByteArray(64 * 1024 - 6, 'x'));
    refused("64 KiB and one byte", "a: b\n#" + QByteArray(64 * 1024 - 5, 'x'), kTooLarge);

    // Tags.
    refused("a core tag", "a: !!str zqx\n");
    refused("a local tag", "a: !zqx b\n");
    refused("a verbatim tag", "a: !<tag:yaml.org,2002:str> zqx\n");
    refused("a tag on a key", "!!str zqx: b\n");
    refused("a tag on a list", "a: !!seq [zqx]\n");
    refused("a tag on the top map", "!!map {a: zqx}");
    refused("a binary value", "a: !!binary emF4\n");

    // Keys.
    refused("a duplicate key", "zqx: a\nzqx: b\n");
    refused("a nested duplicate key", "a: {zqx: 1, zqx: 2}\n");
    refused("a list as key", "? [zqx]\n: b\n");
    refused("a map as key", "? {zqx: a}\n: b\n");
    refused("a null key", "? \n: zqx\n");
    refused("an anchored key", "&k zqx: b\n");
    refused("an alias as key", "a: &v zqx\n*v : c\n");

    // Nulls and shapes.
    refused("a null value", "a: ~\nb: zqx\n");
    refused("an empty value", "a:\nb: zqx\n");
    refused("a null word", "a: null\nb: zqx\n");
    refused("a null item", "a: [zqx, ~]\n");
    refused("empty text", "");
    refused("only a comment", "# zqx\n");
    refused("a list at the top", "- zqx\n");
    refused("a scalar at the top", "zqx\n");

    // Documents and bytes.
    refused("two documents", "a: zqx\n---\nb: c\n");
    refused("a NUL byte", QByteArray("a: zqx\0b", 8));
    refused("a lone comma", ",");
    refused("a comma after a document",
            shippedText(QStringLiteral("demo-shop-orders.yaml")) + "\n---\n,");
    refused("an unclosed list", "a: [zqx\n");
    refused("an unclosed flow map", "a: {zqx: b\n");
    refused("a bad indentation", "a: zqx\n  b: c\n d: e\n");
    refused("an undefined alias", "a: *zqx\n");
    refused("an escaped lone surrogate", "a: \"zqx\\ud800\"\n");
}

void RecipeTest::readerBounds()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, code);
    QFETCH(QString, message);
    const Result<QJsonObject> document = readPromptly(yaml);
    if (code.isEmpty()) {
        QVERIFY2(document.ok(), qPrintable(document.ok() ? QString() : document.error().message));
        return;
    }
    QVERIFY(!document.ok());
    QCOMPARE(document.error().code, code);
    if (!message.isEmpty())
        QCOMPARE(document.error().message, message);
    QVERIFY(!document.error().code.contains(QLatin1String(kMarker)));
    QVERIFY(!document.error().message.contains(QLatin1String(kMarker)));
}

void RecipeTest::readsScalarsAsText()
{
    const Result<QJsonObject> document = RecipeCatalog::readDocument(
        "a: 1\nb: true\nc: '007'\nd: [1.5, -2]\ne: {f: \"g\"}\nh: 0x10\ni: &v x\nj: *v\n");
    QVERIFY(document.ok());
    QCOMPARE(
        *document,
        (QJsonObject{{QStringLiteral("a"), QStringLiteral("1")},
                     {QStringLiteral("b"), QStringLiteral("true")},
                     {QStringLiteral("c"), QStringLiteral("007")},
                     {QStringLiteral("d"), QJsonArray{QStringLiteral("1.5"), QStringLiteral("-2")}},
                     {QStringLiteral("e"), QJsonObject{{QStringLiteral("f"), QStringLiteral("g")}}},
                     {QStringLiteral("h"), QStringLiteral("0x10")},
                     {QStringLiteral("i"), QStringLiteral("x")},
                     {QStringLiteral("j"), QStringLiteral("x")}}));
}

void RecipeTest::accepted_data()
{
    QTest::addColumn<QByteArray>("yaml");
    const auto row = [](const char *name, const QByteArray &yaml) { QTest::newRow(name) << yaml; };
    row("the base", recipeWith({}));
    // The deepest a recipe goes: a row's cells and failure texts, 7 deep.
    row("a row completion with failure texts",
        withClickPostcondition(QStringLiteral(
            "{completion: {kind: row, cells: [1001, Shipped], failure_texts: [Out of stock]}}")));
    row("an id of 3 units", withField("id", QStringLiteral("a.b")));
    row("an id of 64 units", withField("id", QString(64, u'a')));
    row("an id of words", withField("id", QStringLiteral("shop-2.orders.v2")));
    row("version 1,000,000", withField("version", QStringLiteral("1000000")));
    row("a quoted version", withField("version", QStringLiteral("'7'")));
    row("a title of 128 units", withField("title", QString(128, u't')));
    row("a title beyond ASCII", withField("title", QStringLiteral("Über die Bestellungen")));
    row("an origin with a port", withField("origin", QStringLiteral("https://shop.de:8443")));
    row("an origin with a slash and capitals",
        withField("origin", QStringLiteral("HTTPS://Shop.DE/")));
    row("eight intents",
        withField("intents",
                  QLatin1Char('[') +
                      QStringList{QStringLiteral("a1"), QStringLiteral("a2"), QStringLiteral("a3"),
                                  QStringLiteral("a4"), QStringLiteral("a5"), QStringLiteral("a6"),
                                  QStringLiteral("a7"), QStringLiteral("a8")}
                          .join(QStringLiteral(", ")) +
                      QLatin1Char(']')));
    row("an intent of 256 units",
        withField("intents", QLatin1Char('[') + QString(256, u'i') + u']'));
    row("intents differing beyond case",
        withField("intents", QStringLiteral("[Show orders, Show order]")));
    row("deadline 1", withField("deadline_seconds", QStringLiteral("1")));
    row("deadline 900", withField("deadline_seconds", QStringLiteral("900")));
    row("sixteen steps", withSteps(repeated(QStringLiteral("{navigate: /account}"), 16)));
    const QString collectStep = QStringLiteral(
        "{collect: {kind: table, columns: [{name: Order, type: integer}], limit: 50, next: "
        "{role: link, name: Next page}, pages: %1}}");
    row("a collection of 2 pages",
        withSteps(QStringLiteral("{navigate: /orders}, ") + collectStep.arg(2)));
    row("a collection of 10 pages with its index",
        withSteps(
            QStringLiteral("{navigate: /orders}, ") +
            QString(collectStep.arg(10))
                .replace(QStringLiteral("kind: table,"), QStringLiteral("kind: list, index: 2,"))));
    // 1 + 2 x 28 + 7 = 64 calls: the bound, reached exactly.
    row("collections up to the calls bound",
        withSteps(QStringLiteral("{navigate: /orders}, ") + repeated(collectStep.arg(10), 2) +
                  QStringLiteral(", ") + repeated(QStringLiteral("{observe: {}}"), 7)));
    row("an observe step", withSteps(QStringLiteral("{navigate: /a}, {observe: {}}")));
    row("the root path", withSteps(QStringLiteral("{navigate: /}")));
    row("a path with a query",
        withSteps(QStringLiteral("{navigate: \"/a/b-c_d.e~f?x=1&y=a+b,c:d;e@f!$'()*\"}")));
    row("a path with a dot in a segment",
        withSteps(QStringLiteral("{navigate: /v1.2/.well/a..b}")));
    row("a path of 512 units",
        withSteps(QStringLiteral("{navigate: /") + QString(511, u'p') + QStringLiteral("}")));
    row("a click", withAct(QStringLiteral("kind: click, ") + kButton + u", " + kDone));
    row("a type", withAct(QStringLiteral("kind: type, target: {role: textbox, name: Note}, "
                                         "text: 'Leave it at the door', ") +
                          kDone));
    row("a type of nothing",
        withAct(QStringLiteral("kind: type, target: {role: textbox, name: Note}, text: '', ") +
                kDone));
    row("a select", withAct(QStringLiteral("kind: select, target: {role: combobox, name: Size}, "
                                           "option: Large, ") +
                            kDone));
    row("a check of false", withAct(QStringLiteral("kind: check, target: {role: checkbox, name: "
                                                   "Ads}, checked: false, postcondition: "
                                                   "{control: {role: checkbox, name: Ads, "
                                                   "checked: false}}")));
    row("a press", withAct(QStringLiteral("kind: press, target: {role: textbox, name: Search}, "
                                          "key: ArrowDown, ") +
                           kDone));
    row("a scroll up", withAct(QStringLiteral("kind: scroll, target: {role: main, name: Orders}, "
                                              "delta: -2000, ") +
                               kDone));
    row("a scroll down", withAct(QStringLiteral("kind: scroll, target: {role: main, name: Orders}, "
                                                "delta: 2000, ") +
                                 kDone));
    row("a control with every field",
        withClickPostcondition(QStringLiteral("{control: {role: button, name: Saved, checked: "
                                              "true, disabled: false, timeout_ms: 5000}}")));
    row("a control of timeout 0", withClickPostcondition(QStringLiteral(
                                      "{control: {role: button, name: Saved, timeout_ms: 0}}")));
    row("a region completion",
        withClickPostcondition(QStringLiteral("{completion: {kind: region, name: Thanks}}")));
    row("a region completion of a kind",
        withClickPostcondition(
            QStringLiteral("{completion: {kind: region, name: Thanks, region_kind: dialog}}")));
    row("a target name of 1,024 units",
        withAct(QStringLiteral("kind: click, target: {role: button, name: ") + QString(1024, u'n') +
                QStringLiteral("}, ") + kDone));
    row("an extract with the default index",
        withExtract(QStringLiteral("kind: list, columns: [{name: Item, type: string}], limit: 1")));
    row("an extract of a form",
        withExtract(QStringLiteral("kind: form, index: 15, columns: [{name: A, type: integer, "
                                   "required: false}, {name: B, type: number}, {name: C, type: "
                                   "boolean, required: true}], limit: 50")));
    row("eight columns", withExtract(QStringLiteral(
                             "kind: table, columns: [{name: c1, type: string}, {name: c2, "
                             "type: string}, {name: c3, type: string}, {name: c4, type: "
                             "string}, {name: c5, type: string}, {name: c6, type: string}, "
                             "{name: c7, type: string}, {name: c8, type: string}], limit: 5")));
    row("block style", "format: 1\nid: acme.block\nversion: 2\ntitle: Block\norigin: "
                       "https://shop.de\nintents:\n  - One\nsteps:\n  - navigate: /a\n  - observe: "
                       "{}\n  - act:\n      kind: press\n      target:\n        role: textbox\n"
                       "        name: Search\n      key: Enter\n      postcondition:\n"
                       "        completion:\n          kind: text\n          text: Results\n");
    row("quoted everything", "\"format\": \"1\"\n\"id\": \"acme.quoted\"\n\"version\": \"3\"\n"
                             "\"title\": \"T\"\n\"origin\": \"https://shop.de\"\n\"intents\": "
                             "[\"x\"]\n\"steps\": [{\"navigate\": \"/\"}]\n");
    row("a comment after a value", recipeWith({}) + "# a closing comment\n");
    // Texts that JSON writes raw or escapes otherwise than YAML would: each reads back the same
    // from the JSON form (checked below for every row).
    for (const char *text :
         {"\"a\\x85b\"", "\"a\\u2028b\"", "\"a\\u2029b\"", "\"a\\uFEFFb\"", "\"\\uFEFFa\"",
          "\"a\\x7fb\"", "\"a\\x00b\"",   "\"a\\x01b\"",   "\"a\\rb\"",     "\"a\\\\b\"",
          "\"a\\/b\"",   "\"\\u00a0a\"",  "\"a\\eb\"",     "\"a\\Lb\"",     "\"a\\Nb\"",
          "\"a\\_b\"",   "'#a'",          "'&a'",          "'*a'",          "'- a'",
          "'a: b'",      "'{a}'",         "'\"a\"'",       "' a '",         "'true'",
          "'~'"})
        QTest::newRow(qPrintable(QStringLiteral("a text of %1").arg(QLatin1String(text))))
            << recipeWith(
                   {{QStringLiteral("intents"), QStringLiteral("[%1]").arg(QLatin1String(text))},
                    {QStringLiteral("steps"),
                     QStringLiteral("[{navigate: /a}, {act: {kind: type, target: {role: "
                                    "textbox, name: %1}, text: %1, ")
                             .arg(QLatin1String(text)) +
                         kDone + QStringLiteral("}}]")}});
}

void RecipeTest::accepted()
{
    QFETCH(QByteArray, yaml);
    const TestOverrides overrides = demoOverrides();
    const Result<Recipe> recipe = RecipeCatalog::parse(yaml, Recipe::Source::Private, overrides);
    QVERIFY2(recipe.ok(), qPrintable(recipe.ok() ? QString() : recipe.error().message));
    QCOMPARE(recipe->source, Recipe::Source::Private);
    QVERIFY(recipe->steps.first().kind == RecipeStep::Kind::Navigate);
    QVERIFY(recipe->plannedCalls() <= Recipe::kMaxCalls);
    // Its JSON form reads back as the same recipe.
    const Result<Recipe> again = readBack(*recipe, overrides);
    QVERIFY2(again.ok(), qPrintable(again.ok() ? QString() : again.error().message));
    QVERIFY(*again == *recipe);
}

void RecipeTest::refused_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("code");
    const auto row = [](const char *name, const QByteArray &yaml, const QString &code = kInvalid) {
        QTest::newRow(name) << yaml << code;
    };
    const QString zqx = QString::fromLatin1(kMarker);

    // The top level: exactly its keys.
    row("an unknown top-level key", withField("zqx_extra", QStringLiteral("1")));
    for (const char *key : {"format", "id", "version", "title", "origin", "intents", "steps"})
        QTest::newRow(qPrintable(QStringLiteral("no %1").arg(QLatin1String(key))))
            << withField(key, QString()) << kInvalid;
    row("a null deadline", withField("deadline_seconds", QStringLiteral("~")));

    // format
    for (const char *format : {"2", "0", "01", "+1", "1.0", "1e0", "zqx", "[1]", "true"})
        QTest::newRow(qPrintable(QStringLiteral("format %1").arg(QLatin1String(format))))
            << withField("format", QLatin1String(format)) << kInvalid;

    // id
    row("an id of 2 units", withField("id", QStringLiteral("ab")));
    row("an id of 65 units", withField("id", zqx + QString(62, u'a')));
    row("an id with capitals", withField("id", QStringLiteral("Zqx.shop")));
    row("an id with two separators", withField("id", QStringLiteral("zqx..shop")));
    row("an id beginning with a separator", withField("id", QStringLiteral("-zqx")));
    row("an id ending with a separator", withField("id", QStringLiteral("zqx-")));
    row("an id with an underscore", withField("id", QStringLiteral("zqx_shop")));
    row("an id with a space", withField("id", QStringLiteral("'zqx shop'")));
    row("an id beyond ASCII", withField("id", QStringLiteral("zqx.café")));
    row("an id as a list", withField("id", QStringLiteral("[zqx.shop]")));

    // version: plain decimal digits, 1..1,000,000
    for (const char *version : {"0", "1000001", "-1", "+1", "01", "1e3", "0x10", "1.0", "true",
                                "9999999999", "'1 '", "[1]", "{a: 1}"})
        QTest::newRow(qPrintable(QStringLiteral("version %1").arg(QLatin1String(version))))
            << withField("version", QLatin1String(version)) << kInvalid;

    // title
    row("an empty title", withField("title", QStringLiteral("''")));
    row("a title of 129 units", withField("title", zqx + QString(126, u't')));
    row("a title with a control character", withField("title", QStringLiteral("\"zqx\\u0001\"")));
    row("a title with a tab", withField("title", QStringLiteral("\"zqx\\tx\"")));
    row("a title with a line break", withField("title", QStringLiteral("\"zqx\\nx\"")));
    row("a title as a map", withField("title", QStringLiteral("{zqx: x}")));

    // origin
    for (const char *origin : {"http://zqx.shop.de", "https://shop.de/zqx", "https://zqx.test",
                               "https://localhost", "https://127.0.0.1", "https://user@zqx.de",
                               "https://zqx.de?q", "zqx.de", "https://zqx", "[https://zqx.de]"})
        QTest::newRow(qPrintable(QStringLiteral("origin %1").arg(QLatin1String(origin))))
            << withField("origin", QLatin1String(origin)) << kInvalid;

    // intents
    row("no intent", withField("intents", QStringLiteral("[]")));
    row("nine intents",
        withField("intents", QStringLiteral("[a1, a2, a3, a4, a5, a6, a7, a8, zqx]")));
    row("an intent of white space", withField("intents", QStringLiteral("[zqx, '  ']")));
    row("an intent of a question mark", withField("intents", QStringLiteral("[zqx, '?']")));
    row("an empty intent", withField("intents", QStringLiteral("[zqx, '']")));
    row("an intent of 257 units",
        withField("intents", QLatin1Char('[') + zqx + QString(254, u'i') + u']'));
    row("intents alike once normalized",
        withField("intents", QStringLiteral("[Show zqx orders, '  show ZQX   orders! ']")));
    row("intents as one text", withField("intents", QStringLiteral("zqx")));
    row("an intent as a map", withField("intents", QStringLiteral("[{zqx: x}]")));

    // deadline_seconds
    for (const char *deadline : {"0", "901", "-5", "05", "zqx", "300.0", "[300]"})
        QTest::newRow(qPrintable(QStringLiteral("deadline %1").arg(QLatin1String(deadline))))
            << withField("deadline_seconds", QLatin1String(deadline)) << kInvalid;

    // steps
    row("no step", withField("steps", QStringLiteral("[]")));
    row("seventeen steps", withSteps(repeated(QStringLiteral("{navigate: /zqx}"), 17)));
    row("steps as a map", withField("steps", QStringLiteral("{navigate: /zqx}")));
    row("a first step that observes", withSteps(QStringLiteral("{observe: {}}, {navigate: /zqx}")));
    row("a first step that acts",
        withSteps(QStringLiteral("{act: {kind: click, ") + kButton + u", " + kDone +
                  QStringLiteral("}}, {navigate: /zqx}")));
    row("a step with two keys", withSteps(QStringLiteral("{navigate: /zqx, observe: {}}")));
    row("a step of an unknown kind", withSteps(QStringLiteral("{navigate: /a}, {zqx: {}}")));
    row("a step as text", withSteps(QStringLiteral("{navigate: /a}, zqx")));
    row("a step as an empty map", withSteps(QStringLiteral("{navigate: /a}, {}")));
    row("an observe step with a key",
        withSteps(QStringLiteral("{navigate: /a}, {observe: {zqx: 1}}")));
    row("an observe step of text", withSteps(QStringLiteral("{navigate: /a}, {observe: zqx}")));
    row("an observe step of a list", withSteps(QStringLiteral("{navigate: /a}, {observe: []}")));

    // navigate
    for (const char *path :
         {"zqx",          "'//zqx.de/a'",    "/zqx//b",   "/zqx/../b", "/./zqx",      "/zqx/..",
          "/zqx/.",       "/zqx%20b",        "'/zqx\\b'", "'/zqx#b'",  "'/zqx/{id}'", "'/zqx b'",
          "\"/zqx\\tb\"", "'/zqx?a=<b>'",    "'/zqx\"'",  "/zqx^",     "/zqx|b",      "/zqx`b",
          "'/zqx[0]'",    "\"/zqx\\u0000\"", "/zqxé",     "{zqx: 1}",  "[/zqx]",      "''"})
        QTest::newRow(qPrintable(QStringLiteral("navigate %1").arg(QLatin1String(path))))
            << withSteps(QStringLiteral("{navigate: ") + QString::fromUtf8(path) + u'}')
            << kInvalid;
    row("a path of 513 units",
        withSteps(QStringLiteral("{navigate: /zqx") + QString(509, u'p') + QStringLiteral("}")));

    // act
    row("an unknown act kind", withAct(QStringLiteral("kind: zqx, ") + kButton + u", " + kDone));
    row("an act without a kind", withAct(kButton + u", " + kDone));
    row("an act without a target", withAct(QStringLiteral("kind: click, ") + kDone));
    row("an act without a postcondition", withAct(QStringLiteral("kind: click, ") + kButton));
    row("an unknown act key", withAct(QStringLiteral("kind: click, ") + kButton + u", " + kDone +
                                      QStringLiteral(", zqx: 1")));
    row("a click with a text", withAct(QStringLiteral("kind: click, ") + kButton +
                                       QStringLiteral(", text: zqx, ") + kDone));
    row("a type without its text",
        withAct(QStringLiteral("kind: type, ") + kButton + u", " + kDone));
    row("a type with an option", withAct(QStringLiteral("kind: type, ") + kButton +
                                         QStringLiteral(", option: zqx, ") + kDone));
    row("a type of a list", withAct(QStringLiteral("kind: type, ") + kButton +
                                    QStringLiteral(", text: [zqx], ") + kDone));
    row("a select without its option",
        withAct(QStringLiteral("kind: select, ") + kButton + u", " + kDone));
    for (const char *checked : {"yes", "True", "TRUE", "1", "on", "zqx", "[true]"})
        QTest::newRow(qPrintable(QStringLiteral("checked %1").arg(QLatin1String(checked))))
            << withAct(QStringLiteral("kind: check, ") + kButton + QStringLiteral(", checked: ") +
                       QLatin1String(checked) + u", " + kDone)
            << kInvalid;
    for (const char *key : {"enter", "Ctrl+A", "F1", "zqx", "''"})
        QTest::newRow(qPrintable(QStringLiteral("key %1").arg(QLatin1String(key))))
            << withAct(QStringLiteral("kind: press, ") + kButton + QStringLiteral(", key: ") +
                       QLatin1String(key) + u", " + kDone)
            << kInvalid;
    for (const char *delta : {"0", "-0", "2001", "-2001", "+5", "1.5", "05", "--5", "- 5", "zqx"})
        QTest::newRow(qPrintable(QStringLiteral("delta %1").arg(QLatin1String(delta))))
            << withAct(QStringLiteral("kind: scroll, ") + kButton + QStringLiteral(", delta: '") +
                       QLatin1String(delta) + QStringLiteral("', ") + kDone)
            << kInvalid;
    row("a target without a name",
        withAct(QStringLiteral("kind: click, target: {role: zqx}, ") + kDone));
    row("a target without a role",
        withAct(QStringLiteral("kind: click, target: {name: zqx}, ") + kDone));
    row("a target of an empty name",
        withAct(QStringLiteral("kind: click, target: {role: zqx, name: ''}, ") + kDone));
    row("a target of an empty role",
        withAct(QStringLiteral("kind: click, target: {role: '', name: zqx}, ") + kDone));
    row("a target role of 65 units",
        withAct(QStringLiteral("kind: click, target: {role: zqx") + QString(62, u'r') +
                QStringLiteral(", name: Save}, ") + kDone));
    row("an unknown target key",
        withAct(QStringLiteral("kind: click, target: {role: button, name: Save, zqx: 1}, ") +
                kDone));
    row("a target as text", withAct(QStringLiteral("kind: click, target: zqx, ") + kDone));

    // postcondition
    row("an empty postcondition", withClickPostcondition(QStringLiteral("{}")));
    row("a postcondition as text", withClickPostcondition(QStringLiteral("zqx")));
    row("a postcondition of both kinds",
        withClickPostcondition(QStringLiteral("{control: {role: button, name: zqx}, completion: "
                                              "{kind: text, text: zqx}}")));
    row("an unknown postcondition key", withClickPostcondition(QStringLiteral("{zqx: {}}")));
    row("a control without a role",
        withClickPostcondition(QStringLiteral("{control: {name: zqx}}")));
    row("a control without a name",
        withClickPostcondition(QStringLiteral("{control: {role: zqx}}")));
    row("an unknown control key",
        withClickPostcondition(QStringLiteral("{control: {role: button, name: Save, zqx: 1}}")));
    row("a control checked 1",
        withClickPostcondition(QStringLiteral("{control: {role: button, name: zqx, checked: 1}}")));
    row("a control disabled yes", withClickPostcondition(QStringLiteral(
                                      "{control: {role: button, name: zqx, disabled: yes}}")));
    row("a control timeout of 5,001",
        withClickPostcondition(
            QStringLiteral("{control: {role: button, name: zqx, timeout_ms: 5001}}")));
    row("a control timeout below 0", withClickPostcondition(QStringLiteral(
                                         "{control: {role: button, name: zqx, timeout_ms: -1}}")));
    row("a control as text", withClickPostcondition(QStringLiteral("{control: zqx}")));
    row("an address completion", withClickPostcondition(QStringLiteral(
                                     "{completion: {kind: url, url: 'https://shop.de/zqx'}}")));
    row("an unknown completion kind",
        withClickPostcondition(QStringLiteral("{completion: {kind: zqx, text: a}}")));
    row("a completion without a kind",
        withClickPostcondition(QStringLiteral("{completion: {text: zqx}}")));
    row("an empty completion text",
        withClickPostcondition(QStringLiteral("{completion: {kind: text, text: ' '}}")));
    row("a completion text of another kind's field",
        withClickPostcondition(QStringLiteral("{completion: {kind: text, name: zqx}}")));
    row("an unknown completion key",
        withClickPostcondition(QStringLiteral("{completion: {kind: text, text: a, zqx: 1}}")));
    row("an unknown region kind", withClickPostcondition(QStringLiteral(
                                      "{completion: {kind: region, name: a, region_kind: zqx}}")));
    row("a completion as text", withClickPostcondition(QStringLiteral("{completion: zqx}")));

    // extract
    const QString column = QStringLiteral("{name: Item, type: string}");
    row("an extract without columns", withExtract(QStringLiteral("kind: table, limit: 5")));
    row("an extract without a limit",
        withExtract(QStringLiteral("kind: table, columns: [") + column + u']'));
    row("an extract without a kind",
        withExtract(QStringLiteral("columns: [") + column + QStringLiteral("], limit: 5")));
    row("an extract of an unknown kind", withExtract(QStringLiteral("kind: zqx, columns: [") +
                                                     column + QStringLiteral("], limit: 5")));
    row("an unknown extract key", withExtract(QStringLiteral("kind: table, columns: [") + column +
                                              QStringLiteral("], limit: 5, zqx: 1")));
    row("an extract with a revision",
        withExtract(QStringLiteral("kind: table, revision: zqx, columns: [") + column +
                    QStringLiteral("], limit: 5")));
    for (const char *index : {"16", "-1", "+1", "01", "zqx"})
        QTest::newRow(qPrintable(QStringLiteral("index %1").arg(QLatin1String(index))))
            << withExtract(QStringLiteral("kind: table, index: '") + QLatin1String(index) +
                           QStringLiteral("', columns: [") + column + QStringLiteral("], limit: 5"))
            << kInvalid;
    for (const char *limit : {"0", "51", "-1", "zqx"})
        QTest::newRow(qPrintable(QStringLiteral("limit %1").arg(QLatin1String(limit))))
            << withExtract(QStringLiteral("kind: table, columns: [") + column +
                           QStringLiteral("], limit: '") + QLatin1String(limit) + u'\'')
            << kInvalid;
    row("no column", withExtract(QStringLiteral("kind: table, columns: [], limit: 5")));
    row("nine columns", withExtract(QStringLiteral("kind: table, columns: [") +
                                    QStringList{QStringLiteral("{name: c1, type: string}"),
                                                QStringLiteral("{name: c2, type: string}"),
                                                QStringLiteral("{name: c3, type: string}"),
                                                QStringLiteral("{name: c4, type: string}"),
                                                QStringLiteral("{name: c5, type: string}"),
                                                QStringLiteral("{name: c6, type: string}"),
                                                QStringLiteral("{name: c7, type: string}"),
                                                QStringLiteral("{name: c8, type: string}"),
                                                QStringLiteral("{name: zqx, type: string}")}
                                        .join(QStringLiteral(", ")) +
                                    QStringLiteral("], limit: 5")));
    row("a column of an unknown type",
        withExtract(QStringLiteral("kind: table, columns: [{name: a, type: zqx}], limit: 5")));
    row("a column required yes",
        withExtract(QStringLiteral("kind: table, columns: [{name: zqx, type: string, required: "
                                   "yes}], limit: 5")));
    row("an unknown column key",
        withExtract(
            QStringLiteral("kind: table, columns: [{name: a, type: string, zqx: 1}], limit: 5")));
    row("a column without a type",
        withExtract(QStringLiteral("kind: table, columns: [{name: zqx}], limit: 5")));
    row("a column without a name",
        withExtract(QStringLiteral("kind: table, columns: [{type: string}], limit: 5")));
    row("two columns of one name",
        withExtract(QStringLiteral("kind: table, columns: [{name: zqx, type: string}, {name: zqx, "
                                   "type: integer}], limit: 5")));
    row("a column name of 65 units",
        withExtract(QStringLiteral("kind: table, columns: [{name: zqx") + QString(62, u'c') +
                    QStringLiteral(", type: string}], limit: 5")));
    row("a column as text", withExtract(QStringLiteral("kind: table, columns: [zqx], limit: 5")));
    row("columns as a map",
        withExtract(QStringLiteral("kind: table, columns: {name: zqx, type: string}, limit: 5")));
    row("an extract as text", withSteps(QStringLiteral("{navigate: /a}, {extract: zqx}")));
    const QString collect = QStringLiteral(
        "{navigate: /a}, {collect: {kind: table, columns: [{name: Order, type: integer}], limit: "
        "5, next: %1, pages: %2}}");
    const QString next = QStringLiteral("{role: link, name: Next page}");
    row("a collection of 1 page", withSteps(collect.arg(next, QStringLiteral("1"))));
    row("a collection of 11 pages", withSteps(collect.arg(next, QStringLiteral("11"))));
    row("a collection without pages",
        withSteps(QString(collect).replace(QStringLiteral(", pages: %2"), QString()).arg(next)));
    row("a collection without next", withSteps(QString(collect)
                                                   .replace(QStringLiteral("next: %1, "), QString())
                                                   .arg(QStringLiteral("3"))));
    row("a collection's next with a state",
        withSteps(collect.arg(QStringLiteral("{role: link, name: Next, checked: true}"),
                              QStringLiteral("3"))));
    row("a collection's next without a name",
        withSteps(collect.arg(QStringLiteral("{role: link}"), QStringLiteral("3"))));
    row("a collection with a bad extract",
        withSteps(QString(collect)
                      .replace(QStringLiteral("limit: 5"), QStringLiteral("limit: 51"))
                      .arg(next, QStringLiteral("3"))));
    // 1 + 2 x 28 + 8 = 65 calls.
    row("collections beyond the calls bound",
        withSteps(QStringLiteral("{navigate: /orders}, ") +
                  repeated(QString(collect)
                               .mid(QStringLiteral("{navigate: /a}, ").size())
                               .arg(next, QStringLiteral("10")),
                           2) +
                  QStringLiteral(", ") + repeated(QStringLiteral("{observe: {}}"), 8)));

    // The reader's refusals reach parse() unchanged.
    row("a tag in a recipe", withField("title", QStringLiteral("!!str zqx")));
    row("a recipe of 64 KiB and one byte",
        recipeWith({}) + '#' + QByteArray(64 * 1024 + 1 - recipeWith({}).size() - 1, 'x'),
        kTooLarge);
    row("a recipe nesting 8 deep",
        withClickPostcondition(QStringLiteral("{completion: {kind: row, cells: [[zqx]]}}")));
}

void RecipeTest::refused()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, code);
    const Result<Recipe> recipe =
        RecipeCatalog::parse(yaml, Recipe::Source::Private, demoOverrides());
    QVERIFY2(!recipe.ok(), yaml.constData());
    QCOMPARE(recipe.error().code, code);
    // Every row is well-formed YAML: it reaches the rule it names, not a slip in its text.
    QVERIFY(recipe.error().message != QLatin1String("A recipe file is well-formed YAML."));
    QVERIFY(!recipe.error().message.isEmpty());
    QVERIFY(!recipe.error().code.contains(QLatin1String(kMarker)));
    QVERIFY(!recipe.error().message.contains(QLatin1String(kMarker)));
}

void RecipeTest::schemaTakesRowsAndFailureTexts()
{
    // The schema takes a row predicate and failure texts (as lists of strings), read from JSON as
    // they are from YAML.
    const QJsonObject document{
        {QStringLiteral("format"), QStringLiteral("1")},
        {QStringLiteral("id"), QStringLiteral("acme.rows")},
        {QStringLiteral("version"), QStringLiteral("1")},
        {QStringLiteral("title"), QStringLiteral("Rows")},
        {QStringLiteral("origin"), QStringLiteral("https://shop.de")},
        {QStringLiteral("intents"), QJsonArray{QStringLiteral("Rows")}},
        {QStringLiteral("steps"),
         QJsonArray{
             QJsonObject{{QStringLiteral("navigate"), QStringLiteral("/orders")}},
             QJsonObject{
                 {QStringLiteral("act"),
                  QJsonObject{
                      {QStringLiteral("kind"), QStringLiteral("click")},
                      {QStringLiteral("target"),
                       QJsonObject{{QStringLiteral("role"), QStringLiteral("button")},
                                   {QStringLiteral("name"), QStringLiteral("Pay")}}},
                      {QStringLiteral("postcondition"),
                       QJsonObject{
                           {QStringLiteral("completion"),
                            QJsonObject{{QStringLiteral("kind"), QStringLiteral("row")},
                                        {QStringLiteral("cells"),
                                         QJsonArray{QStringLiteral("A-1"), QStringLiteral("Paid")}},
                                        {QStringLiteral("failure_texts"),
                                         QJsonArray{QStringLiteral("Declined")}}}}}}}}}}}};
    const Result<Recipe> recipe =
        validatedRecipe(document, Recipe::Source::Private, TestOverrides());
    QVERIFY2(recipe.ok(), qPrintable(recipe.ok() ? QString() : recipe.error().message));
    const RecipeStep &act = recipe->steps.at(1);
    QVERIFY(act.completion.has_value());
    QCOMPARE(act.completion->kind, CompletionPredicate::Kind::Row);
    QCOMPARE(act.completion->cells, (QStringList{QStringLiteral("A-1"), QStringLiteral("Paid")}));
    QCOMPARE(act.completion->failureTexts, QStringList{QStringLiteral("Declined")});
    const QJsonObject json = recipe->toJson();
    QCOMPARE(json[QLatin1String("steps")][1][QLatin1String("act")][QLatin1String("postcondition")]
                 [QLatin1String("completion")][QLatin1String("failure_texts")],
             QJsonValue(QJsonArray{QStringLiteral("Declined")}));

    // A typed value where the reader gives text is not the format's.
    QJsonObject typed = document;
    typed.insert(QStringLiteral("version"), 1);
    QCOMPARE(validatedRecipe(typed, Recipe::Source::Private, TestOverrides()).error().code,
             kInvalid);
}

void RecipeTest::shippedRecipesParse()
{
    const TestOverrides overrides = demoOverrides();
    const QStringList files = QDir(QStringLiteral(":/veetbot/recipes"))
                                  .entryList({QStringLiteral("*.yaml")}, QDir::Files);
    QCOMPARE(files, (QStringList{QStringLiteral("demo-shop-order-history.yaml"),
                                 QStringLiteral("demo-shop-orders.yaml"),
                                 QStringLiteral("demo-shop-shipping-emails.yaml")}));
    QSet<QString> ids;
    for (const QString &file : files) {
        const Result<Recipe> recipe =
            RecipeCatalog::parse(shippedText(file), Recipe::Source::Shipped, overrides);
        QVERIFY2(recipe.ok(), qPrintable(file));
        QVERIFY(!ids.contains(recipe->id));
        ids.insert(recipe->id);
    }
    const RecipeCatalog catalog = RecipeCatalog::shipped(overrides);
    QCOMPARE(catalog.recipes().size(), files.size());
    QVERIFY(catalog.refusals().isEmpty());

    const std::optional<Recipe> history = catalog.find(QStringLiteral("demo-shop.order-history"));
    QVERIFY(history);
    QCOMPARE(history->steps.size(), 2);
    QCOMPARE(history->steps.at(1).kind, RecipeStep::Kind::Collect);
    QCOMPARE(history->steps.at(1).target,
             (RecipeTarget{QStringLiteral("link"), QStringLiteral("Next page")}));
    QCOMPARE(history->steps.at(1).pages, 5);

    const std::optional<Recipe> orders = catalog.find(QStringLiteral("demo-shop.orders"));
    QVERIFY(orders);
    QCOMPARE(orders->source, Recipe::Source::Shipped);
    QCOMPARE(orders->origin, QStringLiteral("https://demo.veetbot.test"));
    QCOMPARE(orders->title, QStringLiteral("List my orders"));
    QCOMPARE(orders->intents,
             (QStringList{QStringLiteral("Check my orders"), QStringLiteral("Show my orders"),
                          QStringLiteral("What did I order")}));
    QCOMPARE(orders->deadlineSeconds, 120);
    QCOMPARE(orders->steps.size(), 2);
    QCOMPARE(orders->steps.at(0).kind, RecipeStep::Kind::Navigate);
    QCOMPARE(orders->steps.at(0).path, QStringLiteral("/account"));
    QCOMPARE(orders->steps.at(1).kind, RecipeStep::Kind::Extract);
    const ExtractRequest &extract = orders->steps.at(1).extract;
    QVERIFY(extract.revision.isEmpty());
    QCOMPARE(extract.kind, ExtractRequest::Kind::Table);
    QCOMPARE(extract.index, 0);
    QCOMPARE(extract.limit, 50);
    QCOMPARE(extract.columns, (QList<ExtractColumn>{
                                  {QStringLiteral("Order"), ExtractColumn::Type::String, true},
                                  {QStringLiteral("Item"), ExtractColumn::Type::String, false},
                                  {QStringLiteral("Status"), ExtractColumn::Type::String, false}}));

    const std::optional<Recipe> emails = catalog.find(QStringLiteral("demo-shop.shipping-emails"));
    QVERIFY(emails);
    QCOMPARE(emails->steps.size(), 3);
    const RecipeStep &check = emails->steps.at(1);
    QCOMPARE(check.kind, RecipeStep::Kind::Act);
    QCOMPARE(check.act, ActRequest::Kind::Check);
    QCOMPARE(check.target,
             (RecipeTarget{QStringLiteral("checkbox"), QStringLiteral("Shipping updates")}));
    QCOMPARE(check.checked, true);
    QVERIFY(check.control);
    QVERIFY(!check.completion);
    QCOMPARE(check.control->role, QStringLiteral("checkbox"));
    QCOMPARE(check.control->name, QStringLiteral("Shipping updates"));
    QCOMPARE(check.control->checked, std::optional<bool>(true));
    QCOMPARE(check.control->timeoutMs, VisiblePredicate::kDefaultTimeoutMs);
    const RecipeStep &save = emails->steps.at(2);
    QCOMPARE(save.act, ActRequest::Kind::Click);
    QVERIFY(!save.control);
    QVERIFY(save.completion);
    QCOMPARE(save.completion->kind, CompletionPredicate::Kind::Text);
    QCOMPARE(save.completion->text, QStringLiteral("Your preferences are saved"));

    QVERIFY(!catalog.find(QStringLiteral("demo-shop.none")));
}

void RecipeTest::shippedRecipesNeedTheirTestHost()
{
    // The demo's recipes serve a test host; without its override such a name is refused, so
    // the product's catalog leaves them out rather than serving a special-use name.
    const RecipeCatalog catalog = RecipeCatalog::shipped(TestOverrides());
    QVERIFY(catalog.recipes().isEmpty());
    const Result<Recipe> recipe =
        RecipeCatalog::parse(shippedText(QStringLiteral("demo-shop-orders.yaml")),
                             Recipe::Source::Shipped, TestOverrides());
    QCOMPARE(recipe.error().code, kInvalid);
}

void RecipeTest::jsonFormReadsBack()
{
    const TestOverrides overrides = demoOverrides();
    const RecipeCatalog catalog = RecipeCatalog::shipped(overrides);
    for (const Recipe &recipe : catalog.recipes()) {
        const QJsonObject json = recipe.toJson();
        // Typed values in the JSON form.
        QCOMPARE(json.value(QLatin1String("format")), QJsonValue(1));
        QCOMPARE(json.value(QLatin1String("version")), QJsonValue(recipe.version));
        QCOMPARE(json.value(QLatin1String("deadline_seconds")), QJsonValue(recipe.deadlineSeconds));
        const Result<Recipe> again = readBack(recipe, overrides);
        QVERIFY2(again.ok(), qPrintable(again.ok() ? QString() : again.error().message));
        QVERIFY(*again == recipe);
        // And once more: the form is stable.
        QCOMPARE(again->toJson(), json);
    }
    const Recipe emails = *catalog.find(QStringLiteral("demo-shop.shipping-emails"));
    const QJsonObject emailsJson = emails.toJson();
    const QJsonObject check =
        emailsJson[QLatin1String("steps")][1][QLatin1String("act")].toObject();
    QCOMPARE(check.value(QLatin1String("checked")), QJsonValue(true));
    QCOMPARE(
        check[QLatin1String("postcondition")][QLatin1String("control")][QLatin1String("checked")],
        QJsonValue(true));
    // The JSON form of the private source reads back as private.
    Recipe owned = emails;
    owned.source = Recipe::Source::Private;
    QCOMPARE(readBack(owned, overrides)->source, Recipe::Source::Private);
}

void RecipeTest::normalizedIntent_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("normalized");
    const auto row = [](const char *name, const QString &text, const QString &normalized) {
        QTest::newRow(name) << text << normalized;
    };
    row("as written", QStringLiteral("check my orders"), QStringLiteral("check my orders"));
    row("case folded", QStringLiteral("Check MY Orders"), QStringLiteral("check my orders"));
    row("white space collapsed", QStringLiteral("  check \t my\n\norders  "),
        QStringLiteral("check my orders"));
    row("a full stop dropped", QStringLiteral("Check my orders."),
        QStringLiteral("check my orders"));
    row("an exclamation dropped", QStringLiteral("Check my orders!"),
        QStringLiteral("check my orders"));
    row("a question mark dropped", QStringLiteral("What did I order?"),
        QStringLiteral("what did i order"));
    row("only one dropped", QStringLiteral("What did I order?!"),
        QStringLiteral("what did i order?"));
    row("white space before the mark", QStringLiteral("What did I order ? "),
        QStringLiteral("what did i order"));
    row("other punctuation kept", QStringLiteral("Orders, please;"),
        QStringLiteral("orders, please;"));
    row("folded beyond ASCII", QStringLiteral("ÜBER ΣΟΦΊΑ"), QStringLiteral("über σοφία"));
    row("only a mark", QStringLiteral(" ? "), QString());
    row("empty", QString(), QString());
}

void RecipeTest::normalizedIntent()
{
    QFETCH(QString, text);
    QFETCH(QString, normalized);
    QCOMPARE(veetbot::normalizedIntent(text), normalized);
}

void RecipeTest::selectMatchesTheWholeRequest_data()
{
    QTest::addColumn<QString>("request");
    QTest::addColumn<QString>("origin");
    QTest::addColumn<QString>("id"); // empty: none
    const QString demo = QStringLiteral("https://demo.veetbot.test");
    const QString orders = QStringLiteral("demo-shop.orders");
    const auto row = [](const char *name, const QString &request, const QString &origin,
                        const QString &id) { QTest::newRow(name) << request << origin << id; };
    row("an intent as written", QStringLiteral("Check my orders"), demo, orders);
    row("an intent normalized", QStringLiteral("  check MY orders?"), demo, orders);
    row("another intent", QStringLiteral("what did i order"), demo, orders);
    row("the other recipe", QStringLiteral("Email me when my orders ship!"), demo,
        QStringLiteral("demo-shop.shipping-emails"));
    row("a test host on another port", QStringLiteral("Check my orders"),
        QStringLiteral("https://demo.veetbot.test:8443"), orders);
    row("more than the intent", QStringLiteral("Check my orders please"), demo, QString());
    row("less than the intent", QStringLiteral("my orders"), demo, QString());
    row("two marks", QStringLiteral("Check my orders??"), demo, QString());
    row("an empty request", QString(), demo, QString());
    row("another origin", QStringLiteral("Check my orders"), QStringLiteral("https://shop.de"),
        QString());
    row("another test host", QStringLiteral("Check my orders"),
        QStringLiteral("https://other.veetbot.test"), QString());
}

void RecipeTest::selectMatchesTheWholeRequest()
{
    QFETCH(QString, request);
    QFETCH(QString, origin);
    QFETCH(QString, id);
    Result<TestOverrides> overrides = TestOverrides::parseResolve(
        QStringLiteral("demo.veetbot.test=127.0.0.1,other.veetbot.test=127.0.0.1"));
    QVERIFY(overrides.ok());
    const RecipeCatalog catalog = RecipeCatalog::shipped(*overrides);
    const std::optional<Recipe> chosen =
        catalog.select(request, originOf(origin, *overrides), *overrides);
    QCOMPARE(chosen ? chosen->id : QString(), id);
}

void RecipeTest::selectRefusesTwoMatches()
{
    const TestOverrides overrides = demoOverrides();
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = root.filePath(QStringLiteral("recipes"));
    QVERIFY(QDir().mkdir(directory));
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), 0700) == 0);
    // A second recipe for one of the demo's intents, and one for it on another origin.
    QVERIFY(writeFile(directory + QStringLiteral("/mine.yaml"),
                      privateRecipe(QStringLiteral("acme.mine"), QStringLiteral("show my orders.")),
                      0600));
    QVERIFY(writeFile(directory + QStringLiteral("/shop.yaml"),
                      privateRecipe(QStringLiteral("acme.shop"),
                                    QStringLiteral("Email me when my orders ship"),
                                    QStringLiteral("https://shop.de")),
                      0600));
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(overrides, directory);
    QVERIFY(catalog.ok());
    QCOMPARE(catalog->recipes().size(), shippedCount() + 2);
    const Origin demo = originOf(QStringLiteral("https://demo.veetbot.test"), overrides);
    const Origin shop = originOf(QStringLiteral("https://shop.de"), overrides);
    QVERIFY(!catalog->select(QStringLiteral("Show my orders"), demo, overrides));
    QCOMPARE(catalog->select(QStringLiteral("Check my orders"), demo, overrides)->id,
             QStringLiteral("demo-shop.orders"));
    QCOMPARE(catalog->select(QStringLiteral("Email me when my orders ship"), demo, overrides)->id,
             QStringLiteral("demo-shop.shipping-emails"));
    QCOMPARE(catalog->select(QStringLiteral("Email me when my orders ship"), shop, overrides)->id,
             QStringLiteral("acme.shop"));
}

void RecipeTest::serves_data()
{
    QTest::addColumn<QString>("recipeOrigin");
    QTest::addColumn<QString>("origin");
    QTest::addColumn<bool>("withOverrides");
    QTest::addColumn<bool>("served");
    const auto row = [](const char *name, const char *recipeOrigin, const char *origin,
                        bool withOverrides, bool served) {
        QTest::newRow(name) << QString::fromLatin1(recipeOrigin) << QString::fromLatin1(origin)
                            << withOverrides << served;
    };
    row("the same origin", "https://shop.de", "https://shop.de", false, true);
    row("the same origin with a port", "https://shop.de:8443", "https://shop.de:8443", false, true);
    row("another port", "https://shop.de", "https://shop.de:8443", true, false);
    row("another host", "https://shop.de", "https://www.shop.de", true, false);
    row("a parent host", "https://www.shop.de", "https://shop.de", true, false);
    row("a test host", "https://demo.veetbot.test", "https://demo.veetbot.test", true, true);
    row("a test host on any port", "https://demo.veetbot.test", "https://demo.veetbot.test:39001",
        true, true);
    row("a test host on any port, without the test", "https://demo.veetbot.test",
        "https://demo.veetbot.test:39001", false, false);
    row("a test host's recipe naming a port", "https://demo.veetbot.test:9000",
        "https://demo.veetbot.test:39001", true, false);
    row("another test host", "https://demo.veetbot.test", "https://other.veetbot.test:39001", true,
        false);
}

void RecipeTest::serves()
{
    QFETCH(QString, recipeOrigin);
    QFETCH(QString, origin);
    QFETCH(bool, withOverrides);
    QFETCH(bool, served);
    Result<TestOverrides> overrides = TestOverrides::parseResolve(
        QStringLiteral("demo.veetbot.test=127.0.0.1,other.veetbot.test=127.0.0.1"));
    QVERIFY(overrides.ok());
    const Result<Recipe> recipe = RecipeCatalog::parse(withField("origin", recipeOrigin),
                                                       Recipe::Source::Private, *overrides);
    QVERIFY(recipe.ok());
    QCOMPARE(
        recipe->serves(originOf(origin, *overrides), withOverrides ? *overrides : TestOverrides()),
        served);
}

void RecipeTest::urlOfKeepsThePathAsWritten_data()
{
    QTest::addColumn<QString>("origin");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("url");
    const auto row = [](const char *name, const char *origin, const char *path, const char *url) {
        QTest::newRow(name) << QString::fromLatin1(origin) << QString::fromLatin1(path)
                            << QString::fromLatin1(url);
    };
    row("a path", "https://shop.de", "/account", "https://shop.de/account");
    row("the root", "https://shop.de", "/", "https://shop.de/");
    row("a port", "https://demo.veetbot.test:39001", "/account",
        "https://demo.veetbot.test:39001/account");
    row("a query", "https://shop.de", "/a/b?x=1&y=a+b,c:d;e@f!$'()*~/?",
        "https://shop.de/a/b?x=1&y=a+b,c:d;e@f!$'()*~/?");
    row("an empty query", "https://shop.de", "/a?", "https://shop.de/a?");
    row("sub-delimiters in the path", "https://shop.de", "/a=b&c+d'(x)*!$;,:@",
        "https://shop.de/a=b&c+d'(x)*!$;,:@");
}

void RecipeTest::urlOfKeepsThePathAsWritten()
{
    QFETCH(QString, origin);
    QFETCH(QString, path);
    QFETCH(QString, url);
    const TestOverrides overrides = demoOverrides();
    const Result<Recipe> recipe = RecipeCatalog::parse(
        withSteps(QStringLiteral("{navigate: \"") + path + QStringLiteral("\"}")),
        Recipe::Source::Private, overrides);
    QVERIFY2(recipe.ok(), qPrintable(recipe.ok() ? QString() : recipe.error().message));
    const QUrl address = Recipe::urlOf(recipe->steps.first(), originOf(origin, overrides));
    QVERIFY(address.isValid());
    QCOMPARE(address.toString(QUrl::FullyEncoded), url);
}

void RecipeTest::referenceAndPlannedCalls()
{
    const RecipeCatalog catalog = RecipeCatalog::shipped(demoOverrides());
    const Recipe orders = *catalog.find(QStringLiteral("demo-shop.orders"));
    const Recipe emails = *catalog.find(QStringLiteral("demo-shop.shipping-emails"));
    QCOMPARE(orders.reference(), QStringLiteral("demo-shop.orders@1"));
    QCOMPARE(orders.plannedCalls(), 2);
    // Three steps, two of them acts (a fresh look and the act each).
    QCOMPARE(emails.plannedCalls(), 5);
    Recipe later = orders;
    later.version = 1000000;
    QCOMPARE(later.reference(), QStringLiteral("demo-shop.orders@1000000"));
    const Recipe history = *catalog.find(QStringLiteral("demo-shop.order-history"));
    // A navigate, then at most five pages: an extract each, a look and a click between.
    QCOMPARE(history.plannedCalls(), 14);
}

void RecipeTest::errorCodesAreFixed()
{
    for (const char *code :
         {"recipe.invalid", "recipe.too_large", "recipe.not_found", "recipe.duplicate_id",
          "recipe.directory_not_private", "recipe.file_not_private"}) {
        const Error error = recipeError(QLatin1String(code));
        QCOMPARE(error.code, QLatin1String(code));
        QVERIFY(!error.message.isEmpty());
        QCOMPARE(recipeError(QLatin1String(code)), error);
    }
}

void RecipeTest::privateRecipesLoad()
{
    const TestOverrides overrides = demoOverrides();
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = root.filePath(QStringLiteral("recipes"));
    QVERIFY(QDir().mkdir(directory));
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), 0700) == 0);
    QVERIFY(writeFile(directory + QStringLiteral("/b.yaml"),
                      privateRecipe(QStringLiteral("acme.b"), QStringLiteral("Do b")), 0600));
    QVERIFY(writeFile(directory + QStringLiteral("/a.yaml"),
                      privateRecipe(QStringLiteral("acme.a"), QStringLiteral("Do a")), 0400));
    // Only *.yaml is read.
    QVERIFY(writeFile(directory + QStringLiteral("/notes.txt"), "zqx", 0644));
    QVERIFY(writeFile(directory + QStringLiteral("/c.yml"), "zqx", 0600));
    QVERIFY(QDir().mkdir(directory + QStringLiteral("/d")));

    const Result<RecipeCatalog> catalog = RecipeCatalog::load(overrides, directory);
    QVERIFY2(catalog.ok(), qPrintable(catalog.ok() ? QString() : catalog.error().code));
    QVERIFY(catalog->refusals().isEmpty());
    QStringList ids;
    for (const Recipe &recipe : catalog->recipes())
        ids << recipe.id;
    // The shipped ones first, then the private ones in the order of their file names.
    QCOMPARE(ids, (QStringList{QStringLiteral("demo-shop.order-history"),
                               QStringLiteral("demo-shop.orders"),
                               QStringLiteral("demo-shop.shipping-emails"),
                               QStringLiteral("acme.a"), QStringLiteral("acme.b")}));
    QCOMPARE(catalog->find(QStringLiteral("acme.a"))->source, Recipe::Source::Private);
    QCOMPARE(catalog->find(QStringLiteral("demo-shop.orders"))->source, Recipe::Source::Shipped);
}

void RecipeTest::privateFileMustBePrivate()
{
    const TestOverrides overrides = demoOverrides();
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = root.filePath(QStringLiteral("recipes"));
    QVERIFY(QDir().mkdir(directory));
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), 0700) == 0);
    QVERIFY(writeFile(directory + QStringLiteral("/open.yaml"),
                      privateRecipe(QStringLiteral("acme.zqx"), QStringLiteral("Do zqx")), 0644));
    QVERIFY(writeFile(directory + QStringLiteral("/group.yaml"),
                      privateRecipe(QStringLiteral("acme.group"), QStringLiteral("Do g")), 0640));
    QVERIFY(writeFile(directory + QStringLiteral("/fine.yaml"),
                      privateRecipe(QStringLiteral("acme.fine"), QStringLiteral("Do f")), 0600));
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(overrides, directory);
    QVERIFY(catalog.ok());
    QVERIFY(catalog->find(QStringLiteral("acme.fine")));
    QVERIFY(!catalog->find(QStringLiteral("acme.zqx")));
    QVERIFY(!catalog->find(QStringLiteral("acme.group")));
    QCOMPARE(catalog->refusals().size(), 2);
    QCOMPARE(catalog->refusals().at(0).file, QStringLiteral("group.yaml"));
    QCOMPARE(catalog->refusals().at(0).error.code, QStringLiteral("recipe.file_not_private"));
    QCOMPARE(catalog->refusals().at(1).file, QStringLiteral("open.yaml"));
    QCOMPARE(catalog->refusals().at(1).error.code, QStringLiteral("recipe.file_not_private"));
    QVERIFY(!catalog->refusals().at(1).error.message.contains(QLatin1String(kMarker)));
}

void RecipeTest::privateDirectoryMustBePrivate_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("0755") << 0755;
    QTest::newRow("0750") << 0750;
    QTest::newRow("0701") << 0701;
    QTest::newRow("0777") << 0777;
}

void RecipeTest::privateDirectoryMustBePrivate()
{
    QFETCH(int, mode);
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = root.filePath(QStringLiteral("recipes"));
    QVERIFY(QDir().mkdir(directory));
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), mode_t(mode)) == 0);
    QVERIFY(writeFile(directory + QStringLiteral("/a.yaml"),
                      privateRecipe(QStringLiteral("acme.a"), QStringLiteral("Do a")), 0600));
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(demoOverrides(), directory);
    QVERIFY(!catalog.ok());
    QCOMPARE(catalog.error(), recipeError(QStringLiteral("recipe.directory_not_private")));

    // Nor is a symbolic link to a private directory, or a path that is not absolute and clean.
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), 0700) == 0);
    const QString link = root.filePath(QStringLiteral("link"));
    QVERIFY(QFile::link(directory, link));
    QCOMPARE(RecipeCatalog::load(demoOverrides(), link).error().code,
             QStringLiteral("recipe.directory_not_private"));
    QCOMPARE(RecipeCatalog::load(demoOverrides(), directory + QStringLiteral("/../recipes"))
                 .error()
                 .code,
             QStringLiteral("recipe.directory_not_private"));
    QVERIFY(RecipeCatalog::load(demoOverrides(), directory).ok());
}

void RecipeTest::symlinkedFileRefused()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = root.filePath(QStringLiteral("recipes"));
    QVERIFY(QDir().mkdir(directory));
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), 0700) == 0);
    const QString elsewhere = root.filePath(QStringLiteral("elsewhere.yaml"));
    QVERIFY(writeFile(elsewhere,
                      privateRecipe(QStringLiteral("acme.linked"), QStringLiteral("Do l")), 0600));
    QVERIFY(QFile::link(elsewhere, directory + QStringLiteral("/linked.yaml")));
    QVERIFY(writeFile(directory + QStringLiteral("/own.yaml"),
                      privateRecipe(QStringLiteral("acme.own"), QStringLiteral("Do o")), 0600));
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(demoOverrides(), directory);
    QVERIFY(catalog.ok());
    QVERIFY(!catalog->find(QStringLiteral("acme.linked")));
    QVERIFY(catalog->find(QStringLiteral("acme.own")));
    QCOMPARE(catalog->refusals().size(), 1);
    QCOMPARE(catalog->refusals().first().file, QStringLiteral("linked.yaml"));
    QCOMPARE(catalog->refusals().first().error,
             recipeError(QStringLiteral("recipe.file_not_private")));
}

void RecipeTest::fifoRefusedWithoutBlocking()
{
    // A named pipe would block an ordinary open until a writer came.
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = root.filePath(QStringLiteral("recipes"));
    QVERIFY(QDir().mkdir(directory));
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), 0700) == 0);
    QVERIFY(::mkfifo(QFile::encodeName(directory + QStringLiteral("/pipe.yaml")).constData(),
                     0600) == 0);
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(demoOverrides(), directory);
    QVERIFY(catalog.ok());
    QCOMPARE(catalog->refusals().size(), 1);
    QCOMPARE(catalog->refusals().first().error.code, QStringLiteral("recipe.file_not_private"));
}

void RecipeTest::privateRecipeCannotTakeATakenId()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = root.filePath(QStringLiteral("recipes"));
    QVERIFY(QDir().mkdir(directory));
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), 0700) == 0);
    QVERIFY(writeFile(directory + QStringLiteral("/a.yaml"),
                      privateRecipe(QStringLiteral("demo-shop.orders"), QStringLiteral("zqx")),
                      0600));
    QVERIFY(writeFile(directory + QStringLiteral("/b.yaml"),
                      privateRecipe(QStringLiteral("acme.twice"), QStringLiteral("First")), 0600));
    QVERIFY(writeFile(directory + QStringLiteral("/c.yaml"),
                      privateRecipe(QStringLiteral("acme.twice"), QStringLiteral("Second")), 0600));
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(demoOverrides(), directory);
    QVERIFY(catalog.ok());
    QCOMPARE(catalog->recipes().size(), shippedCount() + 1);
    QCOMPARE(catalog->find(QStringLiteral("demo-shop.orders"))->source, Recipe::Source::Shipped);
    QCOMPARE(catalog->find(QStringLiteral("acme.twice"))->intents,
             QStringList{QStringLiteral("First")});
    QCOMPARE(catalog->refusals().size(), 2);
    QCOMPARE(catalog->refusals().at(0).file, QStringLiteral("a.yaml"));
    QCOMPARE(catalog->refusals().at(0).error, recipeError(QStringLiteral("recipe.duplicate_id")));
    QCOMPARE(catalog->refusals().at(1).file, QStringLiteral("c.yaml"));
    QCOMPARE(catalog->refusals().at(1).error, recipeError(QStringLiteral("recipe.duplicate_id")));
}

void RecipeTest::missingDirectoryIsNoError()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const Result<RecipeCatalog> catalog =
        RecipeCatalog::load(demoOverrides(), root.filePath(QStringLiteral("absent/recipes")));
    QVERIFY(catalog.ok());
    QCOMPARE(catalog->recipes().size(), shippedCount());
    QVERIFY(catalog->refusals().isEmpty());
}

void RecipeTest::tooLargeFileRefused()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = root.filePath(QStringLiteral("recipes"));
    QVERIFY(QDir().mkdir(directory));
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), 0700) == 0);
    // A recipe and a closing comment that fill `size` bytes.
    const auto padded = [](const QByteArray &text, qsizetype size) -> QByteArray {
        return text + '#' + QByteArray(size - text.size() - 1, 'x');
    };
    QVERIFY(writeFile(
        directory + QStringLiteral("/fits.yaml"),
        padded(privateRecipe(QStringLiteral("acme.fits"), QStringLiteral("Do f")), 64 * 1024),
        0600));
    QVERIFY(writeFile(
        directory + QStringLiteral("/large.yaml"),
        padded(privateRecipe(QStringLiteral("acme.large"), QStringLiteral("Do l")), 64 * 1024 + 1),
        0600));
    QVERIFY(writeFile(
        directory + QStringLiteral("/huge.yaml"),
        padded(privateRecipe(QStringLiteral("acme.huge"), QStringLiteral("Do h")), 1 << 20), 0600));
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(demoOverrides(), directory);
    QVERIFY(catalog.ok());
    QVERIFY(catalog->find(QStringLiteral("acme.fits")));
    QCOMPARE(catalog->refusals().size(), 2);
    QCOMPARE(catalog->refusals().at(0).file, QStringLiteral("huge.yaml"));
    QCOMPARE(catalog->refusals().at(0).error, recipeError(QStringLiteral("recipe.too_large")));
    QCOMPARE(catalog->refusals().at(1).file, QStringLiteral("large.yaml"));
    QCOMPARE(catalog->refusals().at(1).error, recipeError(QStringLiteral("recipe.too_large")));
}

void RecipeTest::invalidFileRefusedAlone()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = root.filePath(QStringLiteral("recipes"));
    QVERIFY(QDir().mkdir(directory));
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), 0700) == 0);
    QVERIFY(writeFile(directory + QStringLiteral("/bad.yaml"), "title: [zqx\n", 0600));
    QVERIFY(writeFile(directory + QStringLiteral("/comma.yaml"), ",", 0600));
    QVERIFY(writeFile(directory + QStringLiteral("/good.yaml"),
                      privateRecipe(QStringLiteral("acme.good"), QStringLiteral("Do g")), 0600));
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(demoOverrides(), directory);
    QVERIFY(catalog.ok());
    QVERIFY(catalog->find(QStringLiteral("acme.good")));
    QCOMPARE(catalog->refusals().size(), 2);
    for (const RecipeCatalog::Refusal &refusal : catalog->refusals()) {
        QCOMPARE(refusal.error.code, kInvalid);
        QVERIFY(!refusal.error.message.contains(QLatin1String(kMarker)));
    }
}

void RecipeTest::atMostSixtyFourPrivateRecipes()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString directory = root.filePath(QStringLiteral("recipes"));
    QVERIFY(QDir().mkdir(directory));
    QVERIFY(::chmod(QFile::encodeName(directory).constData(), 0700) == 0);
    for (int i = 0; i < RecipeCatalog::kMaxPrivateRecipes + 1; ++i) {
        const QString number = QStringLiteral("%1").arg(i, 2, 10, QLatin1Char('0'));
        QVERIFY(writeFile(
            directory + QStringLiteral("/r") + number + QStringLiteral(".yaml"),
            privateRecipe(QStringLiteral("acme.r") + number, QStringLiteral("Do ") + number),
            0600));
    }
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(demoOverrides(), directory);
    QVERIFY(catalog.ok());
    QCOMPARE(catalog->recipes().size(), shippedCount() + RecipeCatalog::kMaxPrivateRecipes);
    QCOMPARE(catalog->refusals().size(), 1);
    QCOMPARE(catalog->refusals().first().file, QStringLiteral("r64.yaml"));
    QCOMPARE(catalog->refusals().first().error.code, kInvalid);
}

void RecipeTest::defaultDirectory()
{
    const QString directory = RecipeCatalog::defaultDirectory();
    QVERIFY(QDir::isAbsolutePath(directory));
    QVERIFY(directory.endsWith(QLatin1String("/veetbot/recipes")));
}

QTEST_GUILESS_MAIN(RecipeTest)
#include "tst_recipe.moc"
