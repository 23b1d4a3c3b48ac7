#include "ApprovalCard.h"

#include "Palette.h"

#include <QCloseEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QShortcut>
#include <QVBoxLayout>

namespace veetbot {

namespace {

// A label that shows text exactly as given (website text is already quoted and escaped by
// the agent's process; it is never read as markup here).
QLabel *plain(const QString &text, const QString &accessibleName, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setAccessibleName(accessibleName);
    return label;
}

// The owner's words for the classifier's consequences.
QString consequenceWords(const QString &consequence)
{
    static const QHash<QString, QString> words{
        {QStringLiteral("payment"), QStringLiteral("a payment")},
        {QStringLiteral("purchase"), QStringLiteral("a purchase")},
        {QStringLiteral("account_recovery"), QStringLiteral("account recovery")},
        {QStringLiteral("credential_change"), QStringLiteral("a password or sign-in change")},
        {QStringLiteral("permission_change"), QStringLiteral("a permission change")},
        {QStringLiteral("legal_acceptance"), QStringLiteral("accepting legal terms")},
        {QStringLiteral("publication"), QStringLiteral("publishing something")},
        {QStringLiteral("destructive"), QStringLiteral("deleting or destroying something")},
        {QStringLiteral("file_transfer"), QStringLiteral("a file transfer")},
        {QStringLiteral("security_settings"), QStringLiteral("a security setting change")},
        {QStringLiteral("sign_out"), QStringLiteral("signing you out of the website")},
        {QStringLiteral("state_change"), QStringLiteral("changing something on the website")},
        {QStringLiteral("submission"), QStringLiteral("sending a form to the website")},
    };
    return words.value(consequence, consequence);
}

} // namespace

ApprovalCard::ApprovalCard(const ApprovalBroker::Question &question, QWidget *parent)
    : QWidget(parent), m_key(question.key)
{
    setAccessibleName(QStringLiteral("Approval request"));
    const QJsonObject &view = question.view;
    const auto text = [&view](const char *key) {
        return view.value(QLatin1String(key)).toString();
    };
    auto *layout = new QVBoxLayout(this);
    auto *heading = plain(QStringLiteral("An agent asks to: ") + text("summary"),
                          QStringLiteral("What the agent asks"), this);
    QFont bold = heading->font();
    bold.setBold(true);
    heading->setFont(bold);
    layout->addWidget(heading);

    const QString consequence = text("consequence");
    if (!consequence.isEmpty()) {
        auto *warning =
            plain(QStringLiteral("Warning: this looks like %1.").arg(consequenceWords(consequence)),
                  QStringLiteral("Warning"), this);
        warning->setStyleSheet(
            QStringLiteral("color: %1; font-weight: bold;").arg(Palette::warningColor(palette())));
        layout->addWidget(warning);
    }

    // Fixed sentences beside the warning: an administration area, a site that saves on its
    // own, an address that changes the site.
    for (const QJsonValue &note : view.value(QLatin1String("notes")).toArray()) {
        if (!note.isString())
            continue;
        auto *line = plain(note.toString(), QStringLiteral("Note"), this);
        line->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::warningColor(palette())));
        layout->addWidget(line);
    }

    auto *form = new QFormLayout;
    const auto row = [&](const QString &label, const QString &value) {
        if (value.isEmpty())
            return;
        auto *name = new QLabel(label + u':', this);
        name->setAccessibleName(label);
        QLabel *shown = plain(value, label, this);
        name->setBuddy(shown);
        form->addRow(name, shown);
    };
    row(QStringLiteral("Action"), text("kind"));
    const bool navigation = text("kind") == QLatin1String("navigate");
    if (navigation) {
        row(QStringLiteral("Address"), text("host") + text("path"));
        row(QStringLiteral("From the page"), text("from_page_title"));
    } else {
        row(QStringLiteral("Page"), text("host") + text("path"));
        row(QStringLiteral("Page title"), text("page_title"));
    }
    if (navigation) {
        // No element: the address is what is approved.
    } else if (view.value(QLatin1String("element_described")).toBool()) {
        row(QStringLiteral("Element"), text("role_word"));
        row(QStringLiteral("Element name"), text("accessible_name"));
    } else {
        row(QStringLiteral("Element"), QStringLiteral("The agent can no longer describe it."));
    }
    row(QStringLiteral("Visible text"), text("visible_text"));
    row(QStringLiteral("In dialog"), text("dialog_name"));
    row(QStringLiteral("Option"), text("option"));
    row(QStringLiteral("Selected now"), text("selected_option"));
    if (view.contains(QLatin1String("checked")))
        row(QStringLiteral("Set checked"), view.value(QLatin1String("checked")).toBool()
                                               ? QStringLiteral("yes")
                                               : QStringLiteral("no"));
    row(QStringLiteral("Key"), text("key"));
    if (view.contains(QLatin1String("scroll_delta"))) {
        const int delta = view.value(QLatin1String("scroll_delta")).toInt();
        row(QStringLiteral("Scroll"),
            QStringLiteral("%1 %2 pixels")
                .arg(delta > 0 ? QStringLiteral("down") : QStringLiteral("up"))
                .arg(std::abs(delta)));
    }
    row(QStringLiteral("Text to type"), text("text"));
    if (view.contains(QLatin1String("text_redacted")))
        row(QStringLiteral("Text to type"),
            QStringLiteral("[hidden: %1]").arg(text("text_redacted")));
    if (view.contains(QLatin1String("text_sha256")))
        row(QStringLiteral("Text to type"),
            QStringLiteral("%1 characters, SHA-256 %2")
                .arg(view.value(QLatin1String("text_code_points")).toInt())
                .arg(text("text_sha256")));
    layout->addLayout(form);

    if (!question.offerRefused.isEmpty())
        layout->addWidget(plain(QStringLiteral("No task grant can be made now (%1): approve "
                                               "once or deny.")
                                    .arg(question.offerRefused),
                                QStringLiteral("Task grant unavailable"), this));
    if (question.offer)
        layout->addWidget(
            plain(QStringLiteral("Approve for this task: this action, and for %1 minutes at most "
                                 "%2 later actions like it under %3, without asking. Anything "
                                 "with a named consequence still asks.")
                      .arg(question.offer->value(QLatin1String("minutes")).toInt())
                      .arg(question.offer->value(QLatin1String("actions")).toInt())
                      .arg(question.offer->value(QLatin1String("scope")).toString()),
                  QStringLiteral("Task grant offer"), this));

    auto *buttons = new QHBoxLayout;
    auto *once = new QPushButton(QStringLiteral("&Approve once"), this);
    once->setAccessibleName(QStringLiteral("Approve once"));
    buttons->addWidget(once);
    connect(once, &QPushButton::clicked, this, [this] { answer(ApprovalAnswer::Approved); });
    if (question.offer) {
        auto *task = new QPushButton(QStringLiteral("Approve for this &task"), this);
        task->setAccessibleName(QStringLiteral("Approve for this task"));
        buttons->addWidget(task);
        connect(task, &QPushButton::clicked, this,
                [this] { answer(ApprovalAnswer::ApprovedForTask); });
    }
    auto *deny = new QPushButton(QStringLiteral("Deny"), this);
    deny->setAccessibleName(QStringLiteral("Deny"));
    buttons->addStretch();
    buttons->addWidget(deny);
    connect(deny, &QPushButton::clicked, this, [this] { answer(ApprovalAnswer::Declined); });
    auto *escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(escape, &QShortcut::activated, this, [this] { answer(ApprovalAnswer::Declined); });
    layout->addLayout(buttons);
    deny->setDefault(true);
    setFocusProxy(deny);
}

void ApprovalCard::answer(ApprovalAnswer answer)
{
    if (m_answered)
        return;
    m_answered = true;
    Q_EMIT answered(m_key, answer);
}

ApprovalsWindow::ApprovalsWindow(ApprovalBroker &broker, QWidget *parent)
    : QWidget(parent), m_broker(broker)
{
    setWindowTitle(QStringLiteral("Approvals — Veetbot Workbench"));
    setAccessibleName(QStringLiteral("Approvals"));
    m_layout = new QVBoxLayout(this);
    m_stack = new QVBoxLayout;
    m_layout->addLayout(m_stack);
    m_more = plain(QString(), QStringLiteral("Waiting approvals"), this);
    m_layout->addWidget(m_more);
    m_layout->addStretch();
    resize(560, 360);
    connect(&broker, &ApprovalBroker::asked, this, &ApprovalsWindow::add);
    connect(&broker, &ApprovalBroker::withdrawn, this, &ApprovalsWindow::remove);
    showCurrent();
}

void ApprovalsWindow::setBanner(QWidget *banner)
{
    banner->setParent(this);
    m_layout->insertWidget(0, banner);
}

void ApprovalsWindow::add(const ApprovalBroker::Question &question)
{
    auto *card = new ApprovalCard(question, this);
    card->hide();
    connect(card, &ApprovalCard::answered, this, [this](quint64 key, ApprovalAnswer answer) {
        m_broker.answer(key, answer);
        remove(key);
    });
    m_cards.append(card);
    showCurrent();
}

bool ApprovalsWindow::showCard(quint64 key)
{
    for (qsizetype i = 0; i < m_cards.size(); ++i) {
        if (m_cards.at(i)->key() != key)
            continue;
        if (i > 0) {
            m_cards.first()->hide();
            m_cards.move(i, 0);
        }
        showCurrent();
        return true;
    }
    return false;
}

void ApprovalsWindow::remove(quint64 key)
{
    for (qsizetype i = 0; i < m_cards.size(); ++i) {
        if (m_cards.at(i)->key() == key) {
            ApprovalCard *card = m_cards.takeAt(i);
            card->hide();
            card->deleteLater();
            Q_EMIT cardGone(key);
            break;
        }
    }
    showCurrent();
}

void ApprovalsWindow::showCurrent()
{
    Q_EMIT waitingChanged(waiting());
    if (m_cards.isEmpty()) {
        m_more->setText(QStringLiteral("No agent is waiting for you."));
        return;
    }
    ApprovalCard *card = m_cards.first();
    if (m_stack->indexOf(card) < 0)
        m_stack->addWidget(card);
    card->show();
    m_more->setText(m_cards.size() > 1
                        ? QStringLiteral("%1 more waiting after this one.").arg(m_cards.size() - 1)
                        : QString());
    if (isWindow()) {
        show();
        raise();
        activateWindow();
    }
    card->setFocus(Qt::OtherFocusReason);
}

void ApprovalsWindow::closeEvent(QCloseEvent *event)
{
    // A closed card denies.
    const QList<ApprovalCard *> open = m_cards;
    for (ApprovalCard *card : open)
        m_broker.answer(card->key(), ApprovalAnswer::Declined);
    for (ApprovalCard *card : open)
        remove(card->key());
    event->accept();
}

} // namespace veetbot
