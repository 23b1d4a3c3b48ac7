// Approval through MCP elicitation over an in-memory channel: the elicitation/create request
// carries the approval view and a required {approve: boolean}; only accept with approve true
// approves; decline, cancel, errors, malformed answers and clients without the capability
// deny; withdrawing a request cancels it at the client.

#include "mcp/ElicitationApprover.h"

#include <QBuffer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace veetbot;
using namespace veetbot::mcp;

namespace {

ApprovalRequest request(quint64 id)
{
    ActRequest act =
        ActRequest::fromJson(
            QJsonDocument::fromJson(
                R"({"kind":"click","expected_revision":"REV-SECRET","ref":"REF-SECRET"})")
                .object())
            .value();
    PageFacts page{QUrl(QStringLiteral("https://shop.example.com/cart?token=QUERY-SECRET")),
                   QStringLiteral("Cart")};
    ElementFacts element{QStringLiteral("button"),
                         QStringLiteral("Pay now"),
                         QString(),
                         QString(),
                         QString(),
                         QString()};
    return ApprovalRequest{id, ApprovalView::build(act, page, element)};
}

struct Fixture
{
    QBuffer output;
    JsonRpcChannel channel{&output};
    bool supports = true;
    ElicitationApprover approver{channel, [this] { return supports; }};
    QList<ApprovalAnswer> answers;

    Fixture() { output.open(QIODevice::WriteOnly); }
    QList<QJsonObject> sent() const
    {
        QList<QJsonObject> out;
        for (const QByteArray &line : output.data().split('\n')) {
            if (!line.isEmpty())
                out.append(QJsonDocument::fromJson(line).object());
        }
        return out;
    }
    void ask(quint64 id)
    {
        approver.requestApproval(request(id), [this](ApprovalAnswer a) { answers.append(a); });
    }
    void reply(const QJsonValue &id, const QJsonObject &result)
    {
        const QByteArray line =
            QJsonDocument(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                      {QStringLiteral("id"), id},
                                      {QStringLiteral("result"), result}})
                .toJson(QJsonDocument::Compact) +
            '\n';
        channel.receive(line);
    }
};

} // namespace

class TestElicitationApprover : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void asksWithTheViewAndARequiredBoolean();
    void onlyAcceptWithTrueApproves_data();
    void onlyAcceptWithTrueApproves();
    void errorsAndMissingCapabilityDeny();
    void withdrawingCancelsAtTheClient();
};

void TestElicitationApprover::asksWithTheViewAndARequiredBoolean()
{
    Fixture f;
    f.ask(1);
    const QList<QJsonObject> sent = f.sent();
    QCOMPARE(sent.size(), 1);
    QCOMPARE(sent.first().value(QStringLiteral("method")).toString(),
             QStringLiteral("elicitation/create"));
    const QJsonObject params = sent.first().value(QStringLiteral("params")).toObject();
    const QString message = params.value(QStringLiteral("message")).toString();
    QVERIFY(message.contains(QStringLiteral("\"Pay now\"")));
    QVERIFY(message.contains(QStringLiteral("shop.example.com")));
    // Never the ref, the revision or the URL query.
    for (const char *secret : {"REF-SECRET", "REV-SECRET", "QUERY-SECRET"})
        QVERIFY2(!message.contains(QLatin1String(secret)), secret);
    const QJsonObject schema = params.value(QStringLiteral("requestedSchema")).toObject();
    QCOMPARE(schema.value(QStringLiteral("required")).toArray(),
             QJsonArray{QStringLiteral("approve")});
    QCOMPARE(schema.value(QStringLiteral("properties"))
                 .toObject()
                 .value(QStringLiteral("approve"))
                 .toObject()
                 .value(QStringLiteral("type"))
                 .toString(),
             QStringLiteral("boolean"));
    QVERIFY(f.answers.isEmpty()); // nothing until the client answers
}

void TestElicitationApprover::onlyAcceptWithTrueApproves_data()
{
    QTest::addColumn<QByteArray>("result");
    QTest::addColumn<int>("answer");
    QTest::newRow("accept true") << QByteArray(R"({"action":"accept","content":{"approve":true}})")
                                 << int(ApprovalAnswer::Approved);
    QTest::newRow("accept false") << QByteArray(
                                         R"({"action":"accept","content":{"approve":false}})")
                                  << int(ApprovalAnswer::Declined);
    QTest::newRow("accept string")
        << QByteArray(R"({"action":"accept","content":{"approve":"true"}})")
        << int(ApprovalAnswer::Declined);
    QTest::newRow("accept without content")
        << QByteArray(R"({"action":"accept"})") << int(ApprovalAnswer::Declined);
    QTest::newRow("decline") << QByteArray(R"({"action":"decline"})")
                             << int(ApprovalAnswer::Declined);
    QTest::newRow("cancel") << QByteArray(R"({"action":"cancel"})")
                            << int(ApprovalAnswer::Cancelled);
    QTest::newRow("unknown action")
        << QByteArray(R"({"action":"approve"})") << int(ApprovalAnswer::Failed);
}

void TestElicitationApprover::onlyAcceptWithTrueApproves()
{
    QFETCH(QByteArray, result);
    QFETCH(int, answer);
    Fixture f;
    f.ask(7);
    const QJsonValue id = f.sent().first().value(QStringLiteral("id"));
    f.reply(id, QJsonDocument::fromJson(result).object());
    QCOMPARE(f.answers, QList<ApprovalAnswer>{ApprovalAnswer(answer)});
    // A second reply to the same id changes nothing.
    f.reply(id,
            QJsonDocument::fromJson(R"({"action":"accept","content":{"approve":true}})").object());
    QCOMPARE(f.answers.size(), 1);
}

void TestElicitationApprover::errorsAndMissingCapabilityDeny()
{
    Fixture f;
    f.ask(1);
    const QJsonValue id = f.sent().first().value(QStringLiteral("id"));
    const QByteArray line =
        QJsonDocument(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                  {QStringLiteral("id"), id},
                                  {QStringLiteral("error"),
                                   QJsonObject{{QStringLiteral("code"), -32601},
                                               {QStringLiteral("message"), QStringLiteral("no")}}}})
            .toJson(QJsonDocument::Compact) +
        '\n';
    f.channel.receive(line);
    QCOMPARE(f.answers, QList<ApprovalAnswer>{ApprovalAnswer::Failed});

    Fixture without;
    without.supports = false;
    without.ask(2);
    QVERIFY(without.answers.isEmpty()); // never from inside the call
    QTRY_COMPARE(without.answers, QList<ApprovalAnswer>{ApprovalAnswer::Failed});
    QVERIFY(without.sent().isEmpty()); // nothing asked of a client that cannot answer
}

void TestElicitationApprover::withdrawingCancelsAtTheClient()
{
    Fixture f;
    f.ask(3);
    const QJsonValue id = f.sent().first().value(QStringLiteral("id"));
    f.approver.cancel(3);
    QCOMPARE(f.answers, QList<ApprovalAnswer>{ApprovalAnswer::Cancelled});
    const QList<QJsonObject> sent = f.sent();
    QCOMPARE(sent.size(), 2);
    QCOMPARE(sent.last().value(QStringLiteral("method")).toString(),
             QStringLiteral("notifications/cancelled"));
    QCOMPARE(
        sent.last().value(QStringLiteral("params")).toObject().value(QStringLiteral("requestId")),
        id);
    // A late approval is dropped.
    f.reply(id,
            QJsonDocument::fromJson(R"({"action":"accept","content":{"approve":true}})").object());
    QCOMPARE(f.answers.size(), 1);
}

QTEST_GUILESS_MAIN(TestElicitationApprover)
#include "tst_elicitationapprover.moc"
