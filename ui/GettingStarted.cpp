#include "GettingStarted.h"

#include "AgentConfiguration.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFontDatabase>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextDocument>
#include <QVBoxLayout>

namespace veetbot {

namespace {

QLabel *wrapped(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    return label;
}

QPushButton *button(const QString &text, const QString &name, QWidget *parent)
{
    auto *widget = new QPushButton(text, parent);
    widget->setAccessibleName(name);
    return widget;
}

// A read-only block of text in a fixed-width font, with Copy beside it.
QPlainTextEdit *copyable(const QString &name, QVBoxLayout *into, QWidget *parent, int lines,
                         QPlainTextEdit::LineWrapMode wrap)
{
    auto *row = new QHBoxLayout;
    auto *text = new QPlainTextEdit(parent);
    text->setReadOnly(true);
    text->setAccessibleName(name);
    text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    text->setLineWrapMode(wrap);
    if (wrap != QPlainTextEdit::NoWrap)
        text->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    text->setFixedHeight(text->fontMetrics().lineSpacing() * lines +
                         2 * (text->frameWidth() + int(text->document()->documentMargin())) + 4);
    auto *copy = button(QObject::tr("Copy"), QObject::tr("Copy the %1").arg(name), parent);
    QObject::connect(copy, &QPushButton::clicked, text,
                     [text] { QApplication::clipboard()->setText(text->toPlainText()); });
    row->addWidget(text, 1);
    row->addWidget(copy, 0, Qt::AlignTop);
    into->addLayout(row);
    return text;
}

} // namespace

GettingStarted::GettingStarted(QWidget *parent) : QWidget(parent)
{
    setAccessibleName(tr("Start here"));
    auto *layout = new QVBoxLayout(this);
    auto *title = new QLabel(tr("Welcome to Veetbot Workbench"), this);
    QFont big = title->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    title->setFont(big);
    layout->addWidget(title);
    layout->addWidget(wrapped(tr("Agents use websites you are signed in to, as you, without "
                                 "ever seeing your password or cookies. Three steps:"),
                              this));

    auto *first = new QGroupBox(tr("1. Add a website and sign in"), this);
    auto *firstLayout = new QVBoxLayout(first);
    firstLayout->addWidget(wrapped(tr("Add the website's address, then sign in as you always "
                                      "do, in a secure browser run by Veetbot."),
                                   first));
    auto *toWebsites = button(tr("Go to &Websites"), tr("Go to Websites"), first);
    connect(toWebsites, &QPushButton::clicked, this, &GettingStarted::websitesRequested);
    firstLayout->addWidget(toWebsites, 0, Qt::AlignLeft);
    layout->addWidget(first);

    auto *second = new QGroupBox(tr("2. Connect an agent"), this);
    auto *secondLayout = new QVBoxLayout(second);
    secondLayout->addWidget(
        wrapped(tr("Any agent that speaks the Model Context Protocol can use a signed-in "
                   "website. Its actions wait for your approval here, in Approvals. The "
                   "configuration says only you write to the agent (--trust-turns owner), so "
                   "routine clicks need no card; remove those two words for an agent that also "
                   "reads mail or other content written by others."),
                second));
    auto *chooser = new QHBoxLayout;
    auto *websiteLabel = new QLabel(tr("W&ebsite:"), second);
    m_profile = new QComboBox(second);
    m_profile->setAccessibleName(tr("Website for the agent"));
    websiteLabel->setBuddy(m_profile);
    chooser->addWidget(websiteLabel);
    chooser->addWidget(m_profile, 1);
    secondLayout->addLayout(chooser);
    m_noWebsite = wrapped(tr("No website yet: add one first. Until then the configuration "
                             "below names PROFILE-ID where its id goes."),
                          second);
    secondLayout->addWidget(m_noWebsite);
    secondLayout->addWidget(wrapped(tr("For desktop and editor agents (an mcpServers "
                                       "configuration file):"),
                                    second));
    // As tall as the configuration is long, so it shows whole.
    const int jsonLines =
        int(AgentConfiguration::mcpServersJson(QString(), QString()).count(u'\n')) + 1;
    m_json = copyable(tr("agent configuration"), secondLayout, second, jsonLines,
                      QPlainTextEdit::NoWrap);
    secondLayout->addWidget(
        wrapped(tr("For command-line agents (their mcp add command):"), second));
    m_command = copyable(tr("agent command"), secondLayout, second, 2, QPlainTextEdit::WidgetWidth);
    layout->addWidget(second);

    auto *third = new QGroupBox(tr("3. Or start a task yourself"), this);
    auto *thirdLayout = new QVBoxLayout(third);
    thirdLayout->addWidget(wrapped(tr("Give Veetbot's own agent a task on a signed-in website, "
                                      "with a model endpoint you run (such as a local model "
                                      "server): New task in Tasks."),
                                   third));
    auto *toTasks = button(tr("Go to &Tasks"), tr("Go to Tasks"), third);
    connect(toTasks, &QPushButton::clicked, this, &GettingStarted::tasksRequested);
    thirdLayout->addWidget(toTasks, 0, Qt::AlignLeft);
    layout->addWidget(third);
    layout->addStretch(1);

    connect(m_profile, &QComboBox::currentIndexChanged, this, &GettingStarted::updateConfiguration);
    updateConfiguration();
}

void GettingStarted::setProfiles(const QList<BrowserProfile> &profiles)
{
    const QString chosen = m_profile->currentData().toString();
    QList<BrowserProfile> ordered;
    for (const BrowserProfile &profile : profiles)
        if (profile.status == ProfileStatus::Ready)
            ordered.append(profile);
    for (const BrowserProfile &profile : profiles)
        if (profile.status != ProfileStatus::Ready && profile.status != ProfileStatus::Revoked)
            ordered.append(profile);
    const QSignalBlocker block(m_profile);
    m_profile->clear();
    for (const BrowserProfile &profile : ordered) {
        const QString origin = profile.allowedOrigins.isEmpty()
                                   ? QString()
                                   : profile.allowedOrigins.constFirst().toString();
        const QString label = profile.status == ProfileStatus::Ready
                                  ? origin
                                  : tr("%1 (not signed in yet)").arg(origin);
        m_profile->addItem(label, profile.id.toString(QUuid::WithoutBraces));
    }
    const int keep = m_profile->findData(chosen);
    if (keep >= 0)
        m_profile->setCurrentIndex(keep);
    updateConfiguration();
}

void GettingStarted::updateConfiguration()
{
    const QString id = m_profile->currentData().toString();
    m_profile->setEnabled(m_profile->count() > 0);
    m_noWebsite->setVisible(m_profile->count() == 0);
    const QString program = AgentConfiguration::program();
    m_json->setPlainText(AgentConfiguration::mcpServersJson(program, id));
    m_command->setPlainText(AgentConfiguration::commandLine(program, id));
}

QString GettingStarted::shownJson() const
{
    return m_json->toPlainText();
}

QString GettingStarted::shownCommand() const
{
    return m_command->toPlainText();
}

} // namespace veetbot
