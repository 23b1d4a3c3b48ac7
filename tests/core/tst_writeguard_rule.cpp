// The write guard's rule (core/domain/action/WriteGuard): which requests can write, from the
// method, the kind, the URL and, where an engine shows it, the body. Every row of the issue's
// shapes: methods, token and operation parameters, method overrides, sign-out and write endpoints,
// high-entropy values, pagination left alone, beacons dropped, GraphQL queries told from
// mutations, and bounds that deny.

#include "domain/action/WriteGuard.h"
#include "domain/run/Activity.h"
#include "domain/web/PageAddress.h"

#include <QTest>

using namespace veetbot;
using namespace veetbot::WriteGuard;

Q_DECLARE_METATYPE(veetbot::WriteGuard::RequestKind)
Q_DECLARE_METATYPE(veetbot::WriteGuard::Verdict)
Q_DECLARE_METATYPE(veetbot::WriteGuard::WriteReason)
Q_DECLARE_METATYPE(veetbot::WriteGuard::OperationKind)

class TestWriteGuardRule : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void judge_data();
    void judge();
    void graphQl_data();
    void graphQl();
    void tokenShapedValues_data();
    void tokenShapedValues();
    void operationKinds_data();
    void operationKinds();
    void bodiesThatRead_data();
    void bodiesThatRead();
    void boundsDeny();
    void pageLabels_data();
    void pageLabels();
    void tokensAreRedactedForTheModel();
};

void TestWriteGuardRule::judge_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<RequestKind>("kind");
    QTest::addColumn<QString>("url");
    QTest::addColumn<Verdict>("verdict");
    QTest::addColumn<WriteReason>("reason");

    const auto D = RequestKind::Document;
    const auto P = RequestKind::PageRequest;
    const auto O = RequestKind::Other;
    const auto A = RequestKind::Asset;
    const auto R = Verdict::Read;
    const auto W = Verdict::Write;
    const QString w = QStringLiteral("https://wiki.test/w/index.php");

    // Reads.
    QTest::newRow("plain GET") << QByteArray("GET") << D << w + "?title=Sandbox" << R
                               << WriteReason::None;
    QTest::newRow("HEAD") << QByteArray("HEAD") << P << w << R << WriteReason::None;
    QTest::newRow("action=edit reads")
        << QByteArray("GET") << D << w + "?title=Sandbox&action=edit" << R << WriteReason::None;
    QTest::newRow("action=history reads")
        << QByteArray("GET") << D << w + "?title=Sandbox&action=history" << R << WriteReason::None;
    QTest::newRow("a search") << QByteArray("GET") << D
                              << w + "?title=Special:Search&search=sour+dough+bread" << R
                              << WriteReason::None;
    QTest::newRow("a cursor is pagination") << QByteArray("GET") << P
                                            << "https://app.test/api/recent?after="
                                               "eyJpZCI6MTIzNDU2Nzg5MH0x&limit=20"
                                            << R << WriteReason::None;
    QTest::newRow("pageToken is pagination") << QByteArray("GET") << P
                                             << "https://app.test/v1/items?pageToken=CiAKGjBpNDd2"
                                                "Nmp2Zml2cXRwYjBpOXA"
                                             << R << WriteReason::None;
    QTest::newRow("a date is no token")
        << QByteArray("GET") << D << "https://shop.test/orders?from=2026-12-03T10:00:00Z" << R
        << WriteReason::None;
    QTest::newRow("a long word is no token") << QByteArray("GET") << D
                                             << "https://shop.test/find?topic="
                                                "internationalization"
                                             << R << WriteReason::None;
    QTest::newRow("an item by object id")
        << QByteArray("GET") << D << "https://shop.test/item?id=507f1f77bcf86cd799439011" << R
        << WriteReason::None;
    QTest::newRow("an item by postId")
        << QByteArray("GET") << P << "https://shop.test/api/p?postId=x7Kp2QmZ9vLr4TsW" << R
        << WriteReason::None;
    QTest::newRow("a script named like a write is a script")
        << QByteArray("GET") << A << "https://app.test/static/delete-dialog.js" << R
        << WriteReason::None;
    // A static asset's versions, hashes and signatures are how it is cached and signed.
    QTest::newRow("a cache-busting version on a script")
        << QByteArray("GET") << A
        << "https://cms.test/wp-includes/js/dist/view.min.js?ver=c24330f635f5cb9d5e0e" << R
        << WriteReason::None;
    QTest::newRow("a signed image")
        << QByteArray("GET") << A << "https://cdn.test/a.png?token=x7Kp2QmZ9vLr4TsW&sig=AbCdEf" << R
        << WriteReason::None;
    QTest::newRow("an icon named for signing out")
        << QByteArray("GET") << A << "https://app.test/img/logout.svg" << R << WriteReason::None;
    QTest::newRow("an unknown operation on an asset")
        << QByteArray("GET") << A << "https://app.test/i.png?action=crop&w=20" << R
        << WriteReason::None;
    QTest::newRow("a version on a page request is a token")
        << QByteArray("GET") << P << "https://app.test/api/config?ver=c24330f635f5cb9d5e0e" << W
        << WriteReason::TokenValue;
    // The reading controls of an admin area: its filter form sends action=-1 ("no bulk
    // action"), its edit form is action=edit, its list layouts are modes.
    const QString cms = QStringLiteral("https://cms.test/wp-admin/");
    QTest::newRow("an admin search form")
        << QByteArray("GET") << D
        << cms + "edit.php?s=bread&post_status=all&post_type=post&action=-1&m=0&cat=0&"
                 "filter_action=Filter&paged=1&action2=-1"
        << R << WriteReason::None;
    QTest::newRow("a list filter")
        << QByteArray("GET") << D << cms + "edit.php?post_status=draft&post_type=post" << R
        << WriteReason::None;
    QTest::newRow("the next page")
        << QByteArray("GET") << D << cms + "edit.php?post_type=post&paged=2" << R
        << WriteReason::None;
    QTest::newRow("an edit form") << QByteArray("GET") << D << cms + "post.php?post=12&action=edit"
                                  << R << WriteReason::None;
    QTest::newRow("a list layout")
        << QByteArray("GET") << D << cms + "upload.php?mode=grid" << R << WriteReason::None;
    QTest::newRow("an extended view")
        << QByteArray("GET") << D << cms + "edit.php?mode=excerpt" << R << WriteReason::None;
    QTest::newRow("search suggestions") << QByteArray("GET") << P
                                        << "https://wiki.test/w/api.php?action=opensearch&"
                                           "search=bread&limit=10&namespace=0"
                                        << R << WriteReason::None;
    QTest::newRow("an API query") << QByteArray("GET") << P
                                  << "https://wiki.test/w/api.php?action=query&list=search&"
                                     "srsearch=bread&format=json"
                                  << R << WriteReason::None;
    QTest::newRow("a weak operation with no write word")
        << QByteArray("GET") << P << "https://app.test/track?event=click&task=123" << R
        << WriteReason::None;
    QTest::newRow("a dotted task that edits")
        << QByteArray("GET") << D
        << "https://cms.test/index.php?option=com_content&task=article.edit&a_id=5" << R
        << WriteReason::None;
    QTest::newRow("searching for the word logout")
        << QByteArray("GET") << D << "https://help.test/search?q=logout" << R << WriteReason::None;
    QTest::newRow("a video page") << QByteArray("GET") << D
                                  << "https://video.test/watch?v=dQw4w9WgXcQ" << R
                                  << WriteReason::None;
    QTest::newRow("an API read of orders")
        << QByteArray("GET") << P << "https://shop.test/api/orders" << R << WriteReason::None;

    // Methods.
    for (const char *method : {"POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND"})
        QTest::newRow(method) << QByteArray(method) << P << "https://app.test/api/x" << W
                              << WriteReason::Method;
    QTest::newRow("a form POST document")
        << QByteArray("POST") << D << w + "?title=Sandbox&action=submit" << W
        << WriteReason::Method;
    QTest::newRow("a beacon is dropped")
        << QByteArray("POST") << RequestKind::Beacon << "https://app.test/collect"
        << Verdict::Dropped << WriteReason::Method;

    // Tokens.
    for (const char *name :
         {"token", "csrf", "_csrf", "csrfmiddlewaretoken", "authenticity_token", "_wpnonce",
          "X-CSRF-Token", "xsrf", "sig", "signature", "hmac", "wpEditToken", "nonce"})
        QTest::newRow(qPrintable(QStringLiteral("token name ") + QLatin1String(name)))
            << QByteArray("GET") << D << w + "?title=X&" + QLatin1String(name) + "=1" << W
            << WriteReason::TokenParameter;
    QTest::newRow("rollback link") << QByteArray("GET") << D
                                   << w + "?title=Sandbox&action=rollback&from=Editor&token="
                                          "9f3b2c1d8e7a6b5c4d3e2f1a0b9c8d7e%2B%5C"
                                   << W << WriteReason::OperationValue;
    QTest::newRow("a token without an operation")
        << QByteArray("GET") << D << w + "?title=Sandbox&wpEditToken=x" << W
        << WriteReason::TokenParameter;
    QTest::newRow("a hex value") << QByteArray("GET") << D
                                 << "https://app.test/go?k=9f3b2c1d8e7a6b5c4d3e" << W
                                 << WriteReason::TokenValue;
    QTest::newRow("a token on an image")
        << QByteArray("GET") << O << "https://app.test/px.gif?u=AbCdEfGh12345678" << W
        << WriteReason::TokenValue;

    // Operations.
    for (const char *op : {"delete", "rollback", "undo", "protect", "logout", "purge", "watch",
                           "markpatrolled", "submit", "like", "trash"})
        QTest::newRow(qPrintable(QStringLiteral("action=") + QLatin1String(op)))
            << QByteArray("GET") << D << w + "?title=X&action=" + QLatin1String(op) << W
            << WriteReason::OperationValue;
    QTest::newRow("op=remove on an image")
        << QByteArray("GET") << O << "https://app.test/api/star?op=remove&id=5" << W
        << WriteReason::OperationValue;
    QTest::newRow("a nonce link that trashes")
        << QByteArray("GET") << D << cms + "post.php?post=12&action=trash&_wpnonce=a1b2c3d4e5" << W
        << WriteReason::OperationValue;
    QTest::newRow("a sign-out link with a nonce")
        << QByteArray("GET") << D << "https://cms.test/wp-login.php?action=logout&_wpnonce=a1b2c3"
        << W << WriteReason::OperationValue;
    QTest::newRow("mark all read")
        << QByteArray("GET") << D << "https://mail.test/inbox?action=markAllRead" << W
        << WriteReason::OperationValue;
    QTest::newRow("a dotted task that saves")
        << QByteArray("GET") << D << "https://cms.test/index.php?task=article.save&a_id=5" << W
        << WriteReason::OperationValue;
    QTest::newRow("a weak operation naming a write")
        << QByteArray("GET") << D << "https://app.test/items?mode=delete&id=5" << W
        << WriteReason::OperationValue;
    QTest::newRow("an unknown strong operation")
        << QByteArray("GET") << D << "https://app.test/x.php?action=frobnicate" << W
        << WriteReason::OperationValue;
    QTest::newRow("an image that watches")
        << QByteArray("GET") << A << "https://wiki.test/api/star?action=watch&title=X" << W
        << WriteReason::OperationValue;
    QTest::newRow("a page in another language")
        << QByteArray("GET") << D << "https://app.test/x.php?action=l%C3%B6schen" << W
        << WriteReason::OperationValue;
    QTest::newRow("_method=DELETE")
        << QByteArray("GET") << D << "https://app.test/posts/5?_method=DELETE" << W
        << WriteReason::MethodOverride;

    // Paths.
    QTest::newRow("sign-out path")
        << QByteArray("GET") << O << "https://app.test/logout" << W << WriteReason::SignOutPath;
    QTest::newRow("sign-out segment")
        << QByteArray("GET") << D << "https://app.test/account/sign-out?next=/" << W
        << WriteReason::SignOutPath;
    QTest::newRow("a delete endpoint")
        << QByteArray("GET") << P << "https://app.test/posts/5/delete" << W
        << WriteReason::WriteEndpoint;
    QTest::newRow("one-click unsubscribe")
        << QByteArray("GET") << D << "https://news.test/unsubscribe?list=5" << W
        << WriteReason::WriteEndpoint;
    QTest::newRow("mark all as read")
        << QByteArray("GET") << D << "https://mail.test/notifications/mark-all-as-read" << W
        << WriteReason::WriteEndpoint;
    QTest::newRow("a sign-out page named in the query")
        << QByteArray("GET") << D << "https://wiki.test/w/index.php?title=Special:UserLogout" << W
        << WriteReason::SignOutPath;
    QTest::newRow("an image at /logout")
        << QByteArray("GET") << A << "https://app.test/logout" << W << WriteReason::SignOutPath;
}

void TestWriteGuardRule::judge()
{
    QFETCH(QByteArray, method);
    QFETCH(RequestKind, kind);
    QFETCH(QString, url);
    QFETCH(Verdict, verdict);
    QFETCH(WriteReason, reason);
    Request request;
    request.method = method;
    request.kind = kind;
    request.url = QUrl(url);
    QVERIFY(request.url.isValid());
    const Judgement judgement = WriteGuard::judge(request);
    QCOMPARE(writeReasonString(judgement.reason), writeReasonString(reason));
    QCOMPARE(judgement.verdict, verdict);
}

void TestWriteGuardRule::graphQl_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<bool>("query");

    const QByteArray json = "application/json; charset=utf-8";
    QTest::newRow("named query") << QByteArray(R"({"query":"query Inbox { messages { id } }"})")
                                 << json << true;
    QTest::newRow("shorthand") << QByteArray(R"({"query":"{ starred { id } }","variables":{}})")
                               << json << true;
    QTest::newRow("query and fragment")
        << QByteArray(R"({"query":"query A { ...F } fragment F on Q { id }"})") << json << true;
    QTest::newRow("a comment naming a mutation")
        << QByteArray(R"({"query":"# mutation\nquery A { a }"})") << json << true;
    QTest::newRow("a string naming a mutation")
        << QByteArray(R"({"query":"query A { a(s: \"mutation {\") }"})") << json << true;
    QTest::newRow("a batch of queries")
        << QByteArray(R"([{"query":"{ a }"},{"query":"query B { b }"}])") << json << true;
    QTest::newRow("application/graphql")
        << QByteArray("query { a }") << QByteArray("application/graphql") << true;

    QTest::newRow("mutation") << QByteArray(R"({"query":"mutation Star { star(id: 1) { id } }"})")
                              << json << false;
    QTest::newRow("subscription") << QByteArray(R"({"query":"subscription S { a }"})") << json
                                  << false;
    QTest::newRow("query then mutation")
        << QByteArray(R"({"query":"query A { a } mutation B { b }","operationName":"A"})") << json
        << false;
    QTest::newRow("a batch with a mutation")
        << QByteArray(R"([{"query":"{ a }"},{"query":"mutation { b }"}])") << json << false;
    QTest::newRow("persisted query")
        << QByteArray(
               R"({"operationName":"A","extensions":{"persistedQuery":{"sha256Hash":"ab"}}})")
        << json << false;
    QTest::newRow("form encoded") << QByteArray("query=%7B+a+%7D")
                                  << QByteArray("application/x-www-form-urlencoded") << false;
    QTest::newRow("plain text") << QByteArray(R"({"query":"{ a }"})") << QByteArray("text/plain")
                                << false;
    QTest::newRow("duplicate member")
        << QByteArray(R"({"query":"{ a }","query":"mutation { b }"})") << json << false;
    QTest::newRow("unbalanced") << QByteArray(R"({"query":"{ a "})") << json << false;
    QTest::newRow("empty") << QByteArray() << json << false;
    QTest::newRow("empty document") << QByteArray(R"({"query":"  "})") << json << false;
}

void TestWriteGuardRule::graphQl()
{
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QFETCH(bool, query);
    QCOMPARE(graphQlIsQuery(body, contentType), query);

    // Only a page request's shown body can make a POST a read.
    Request request;
    request.method = "POST";
    request.kind = RequestKind::PageRequest;
    request.url = QUrl(QStringLiteral("https://app.test/graphql"));
    request.body = body;
    request.contentType = contentType;
    QCOMPARE(WriteGuard::judge(request).verdict, query ? Verdict::Read : Verdict::Write);
    request.kind = RequestKind::Document;
    QCOMPARE(WriteGuard::judge(request).verdict, Verdict::Write);
    request.kind = RequestKind::PageRequest;
    request.body.reset(); // Qt WebEngine 6.4 shows none
    QCOMPARE(WriteGuard::judge(request).verdict, Verdict::Write);
    // A query to a URL that writes is still a write.
    request.body = body;
    request.url = QUrl(QStringLiteral("https://app.test/graphql?action=delete"));
    QCOMPARE(WriteGuard::judge(request).verdict, Verdict::Write);
}

void TestWriteGuardRule::tokenShapedValues_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<bool>("token");
    QTest::newRow("hex") << "9f3b2c1d8e7a6b5c" << true;
    QTest::newRow("base64") << "dGhpcyBpcyBhIHRva2Vu" << true;
    QTest::newRow("base64url letters only") << "AbCdEfGhIjKlMnOp" << true;
    QTest::newRow("uuid") << "3f1e2d4c-5b6a-4789-9abc-def012345678" << false;
    QTest::newRow("object id") << "507f1f77bcf86cd799439011" << true;
    QTest::newRow("random alphanumerics") << "x7Kp2QmZ9vLr4TsW" << true;
    QTest::newRow("CamelCase title") << "WelcomeToTheJungleBook" << false;
    QTest::newRow("15 characters") << "9f3b2c1d8e7a6b5" << false;
    QTest::newRow("a word") << "internationalization" << false;
    QTest::newRow("a phrase") << "sour dough bread with 2 eggs" << false;
    QTest::newRow("a slug") << "how-to-bake-bread-at-home" << false;
    QTest::newRow("a number") << "12345678901234567890" << false;
    QTest::newRow("a date") << "2026-12-03T10:00:00Z" << false;
}

void TestWriteGuardRule::tokenShapedValues()
{
    QFETCH(QString, value);
    QFETCH(bool, token);
    QCOMPARE(isTokenShapedValue(value), token);
}

void TestWriteGuardRule::operationKinds_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<OperationKind>("kind");
    const auto N = OperationKind::None;
    const auto R = OperationKind::Read;
    const auto W = OperationKind::Write;
    const auto U = OperationKind::Unknown;
    QTest::newRow("empty") << "" << N;
    QTest::newRow("no bulk action") << "-1" << N;
    QTest::newRow("a number") << "0" << N;
    for (const char *read :
         {"view", "edit", "history", "opensearch", "query", "parse", "search", "preview", "list",
          "raw", "grid", "excerpt", "article.edit", "getItems", "list_users", "show-all"})
        QTest::newRow(read) << QString::fromLatin1(read) << R;
    for (const char *write :
         {"delete",    "trash",       "untrash",      "spam",       "approve",
          "unapprove", "rollback",    "logout",       "markread",   "markAllRead",
          "mark_read", "unsubscribe", "purge",        "protect",    "watch",
          "submit",    "inline-save", "article.save", "deleteItem", "list_delete"})
        QTest::newRow(write) << QString::fromLatin1(write) << W;
    QTest::newRow("another language") << QString::fromUtf8("l\u00f6schen") << W;
    QTest::newRow("unknown") << "frobnicate" << U;
    QTest::newRow("a joined verb it cannot split") << "editpost" << U;
    QTest::newRow("a login form") << "login" << U;
}

void TestWriteGuardRule::operationKinds()
{
    QFETCH(QString, value);
    QFETCH(OperationKind, kind);
    QCOMPARE(int(operationKind(value)), int(kind));
}

void TestWriteGuardRule::bodiesThatRead_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<bool>("read");
    const QByteArray json = "application/json";
    const QByteArray form = "application/x-www-form-urlencoded; charset=UTF-8";
    const QString rpc = QStringLiteral("https://app.test/rpc");
    QTest::newRow("a JSON-RPC read")
        << rpc << QByteArray(R"({"jsonrpc":"2.0","method":"getItems","params":[],"id":1})") << json
        << true;
    QTest::newRow("a JSON-RPC batch of reads")
        << rpc
        << QByteArray(R"([{"jsonrpc":"2.0","method":"list_users","id":1},)"
                      R"({"jsonrpc":"2.0","method":"search","id":2}])")
        << json << true;
    QTest::newRow("a JSON-RPC write")
        << rpc << QByteArray(R"({"jsonrpc":"2.0","method":"deleteItem","id":1})") << json << false;
    QTest::newRow("a batch with a write")
        << rpc
        << QByteArray(R"([{"jsonrpc":"2.0","method":"getItems","id":1},)"
                      R"({"jsonrpc":"2.0","method":"setFlag","id":2}])")
        << json << false;
    QTest::newRow("an unknown method")
        << rpc << QByteArray(R"({"jsonrpc":"2.0","method":"frobnicate","id":1})") << json << false;
    QTest::newRow("no jsonrpc member")
        << rpc << QByteArray(R"({"method":"getItems"})") << json << false;
    QTest::newRow("a form that queries")
        << "https://wiki.test/w/api.php"
        << QByteArray("action=query&list=search&srsearch=bread&format=json") << form << true;
    QTest::newRow("a form that edits with a token")
        << "https://wiki.test/w/api.php" << QByteArray("action=edit&title=X&text=y&token=abc%2B")
        << form << false;
    QTest::newRow("a form without an operation")
        << "https://wiki.test/w/api.php" << QByteArray("rev=11") << form << false;
    QTest::newRow("a form that deletes")
        << "https://wiki.test/w/api.php" << QByteArray("action=delete&title=X") << form << false;
    QTest::newRow("JSON to a search endpoint")
        << "https://app.test/api/items/search" << QByteArray(R"({"q":"bread","limit":20})") << json
        << true;
    QTest::newRow("JSON to a collection")
        << "https://app.test/api/items" << QByteArray(R"({"q":"bread"})") << json << false;
    QTest::newRow("text to a search endpoint")
        << "https://app.test/api/search" << QByteArray("bread") << QByteArray("text/plain")
        << false;
}

void TestWriteGuardRule::bodiesThatRead()
{
    QFETCH(QString, url);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QFETCH(bool, read);
    Request request;
    request.method = "POST";
    request.kind = RequestKind::PageRequest;
    request.url = QUrl(url);
    request.body = body;
    request.contentType = contentType;
    QCOMPARE(bodyOnlyReads(request), read);
    QCOMPARE(WriteGuard::judge(request).verdict, read ? Verdict::Read : Verdict::Write);
    // Where the engine shows no body (Qt WebEngine 6.4), every POST writes.
    request.body.reset();
    QCOMPARE(WriteGuard::judge(request).verdict, Verdict::Write);
    // A document (a form's submission) is never read by its body.
    request.body = body;
    request.kind = RequestKind::Document;
    QCOMPARE(WriteGuard::judge(request).verdict, Verdict::Write);
}

void TestWriteGuardRule::boundsDeny()
{
    // A query too long to read, or with too many parameters, is a write.
    QUrl longQuery(QStringLiteral("https://app.test/a"));
    longQuery.setQuery(QStringLiteral("q=") + QString(9000, QLatin1Char('a')));
    QCOMPARE(queryWriteReason(longQuery), WriteReason::TokenValue);
    QString many;
    for (int i = 0; i < 200; ++i)
        many += QStringLiteral("p%1=1&").arg(i);
    QCOMPARE(queryWriteReason(QUrl(QStringLiteral("https://app.test/a?") + many)),
             WriteReason::TokenValue);
    // A body over 64 KiB is not read.
    const QByteArray big = R"({"query":"{ a }","pad":")" + QByteArray(70 * 1024, 'x') + R"("})";
    QVERIFY(!graphQlIsQuery(big, "application/json"));
}

void TestWriteGuardRule::pageLabels_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("label");
    const QString w = QStringLiteral("https://wiki.test/w/index.php");
    QTest::newRow("page and operation")
        << w + "?title=Sandbox&action=edit" << QString::fromUtf8("Sandbox \u00B7 edit");
    QTest::newRow("page only") << w + "?title=Sandbox"
                               << "Sandbox";
    QTest::newRow("operation only") << "https://app.test/do.php?op=list"
                                    << "list";
    QTest::newRow("no query") << "https://shop.test/cart"
                              << "";
    QTest::newRow("a search is not a label") << w + "?search=bread"
                                             << "";
    QTest::newRow("a title that is not plain is left out")
        << w + "?title=Special:Search&action=history"
        << "history";
    QTest::newRow("a token is never a part") << w + "?title=X&action=9f3b2c1d8e7a6b5c4d3e"
                                             << "X";
    QTest::newRow("too long a part is left out") << w + "?title=" + QString(40, u'a') + "&do=view"
                                                 << "view";
}

void TestWriteGuardRule::pageLabels()
{
    QFETCH(QString, url);
    QFETCH(QString, label);
    QCOMPARE(PageAddress::queryLabel(QUrl(url)), label);
    // The timeline's path segment is the label where there is one, content-free either way.
    ActivityEvent event;
    event.kind = QStringLiteral("observation");
    event.at = QDateTime::currentDateTimeUtc();
    event.setPage(QUrl(url));
    if (!label.isEmpty())
        QCOMPARE(event.pathSegment, label);
    QVERIFY(isContentFree(event));
}

void TestWriteGuardRule::tokensAreRedactedForTheModel()
{
    const QUrl rollback(QStringLiteral(
        "https://wiki.test/w/index.php?title=Sandbox&action=rollback&from=Editor&token="
        "9f3b2c1d8e7a6b5c4d3e2f1a0b9c8d7e%2B%5C"));
    const QString seen = QString::fromUtf8(PageAddress::redactedForModel(rollback).toEncoded());
    QVERIFY2(!seen.contains(QLatin1String("9f3b2c1d")), qPrintable(seen));
    QVERIFY2(seen.contains(QLatin1String("token=")), qPrintable(seen));
    QVERIFY2(seen.contains(QLatin1String("redacted")), qPrintable(seen));
    QVERIFY(seen.contains(QLatin1String("title=Sandbox&action=rollback&from=Editor")));
    // A random-looking value under any name; ordinary values and URLs without a query stay.
    const QString signedLink =
        QString::fromUtf8(PageAddress::redactedForModel(
                              QUrl(QStringLiteral("https://a.test/x?u=AbCdEfGh12345678&q=bread")))
                              .toEncoded());
    QVERIFY(!signedLink.contains(QLatin1String("AbCdEfGh")));
    QVERIFY(signedLink.contains(QLatin1String("q=bread")));
    const QUrl plain(QStringLiteral("https://shop.test/cart?page=2"));
    QCOMPARE(PageAddress::redactedForModel(plain), plain);
}

QTEST_GUILESS_MAIN(TestWriteGuardRule)
#include "tst_writeguard_rule.moc"
