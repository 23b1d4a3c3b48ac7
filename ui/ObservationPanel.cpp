#include "ObservationPanel.h"

#include <QClipboard>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <limits>

namespace veetbot {

namespace {

constexpr int kShortRevisionChars = 8;

const QString kNone = QStringLiteral("\u2014");

// Page-derived strings are shown as plain text only: a title such as "<img src=...>" must
// never be interpreted as rich text.
QLabel *plainLabel(const QString &objectName, QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setWordWrap(true);
    return label;
}

} // namespace

ObservationPanel::ObservationPanel(QWidget *parent) : QWidget(parent)
{
    m_errorLabel = plainLabel(QStringLiteral("errorLabel"), this);
    m_errorLabel->setForegroundRole(QPalette::BrightText);
    m_errorLabel->setBackgroundRole(QPalette::Dark);
    m_errorLabel->setAutoFillBackground(true);
    m_errorLabel->setMargin(4);
    m_errorLabel->hide();

    m_titleLabel = plainLabel(QStringLiteral("titleLabel"), this);
    m_urlLabel = plainLabel(QStringLiteral("urlLabel"), this);
    m_readinessLabel = plainLabel(QStringLiteral("readinessLabel"), this);
    m_revisionLabel = plainLabel(QStringLiteral("revisionLabel"), this);
    m_coverageLabel = plainLabel(QStringLiteral("coverageLabel"), this);

    auto *header = new QFormLayout();
    header->addRow(tr("Title"), m_titleLabel);
    header->addRow(tr("URL"), m_urlLabel);
    header->addRow(tr("Readiness"), m_readinessLabel);
    header->addRow(tr("Revision"), m_revisionLabel);
    header->addRow(tr("Coverage"), m_coverageLabel);

    m_elements = new QTreeWidget(this);
    m_elements->setObjectName(QStringLiteral("elements"));
    m_elements->setColumnCount(3);
    m_elements->setHeaderLabels({tr("Role"), tr("Name"), tr("State")});
    m_elements->setRootIsDecorated(false);
    m_elements->setUniformRowHeights(true);
    m_elements->setSelectionMode(QAbstractItemView::SingleSelection);
    m_elements->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);

    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(QStringLiteral("readableText"));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);

    m_copyButton = new QPushButton(tr("Copy JSON"), this);
    m_copyButton->setObjectName(QStringLiteral("copyJson"));
    m_copyButton->setToolTip(tr("Copy the observation as JSON to the clipboard"));
    connect(m_copyButton, &QPushButton::clicked, this, &ObservationPanel::copyJson);

    auto *body = new QSplitter(Qt::Vertical, this);
    body->addWidget(m_elements);
    body->addWidget(m_text);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_errorLabel);
    layout->addLayout(header);
    layout->addWidget(body, 1);
    layout->addWidget(m_copyButton, 0, Qt::AlignRight);

    clear();
}

void ObservationPanel::clear()
{
    m_observation.reset();
    m_error.reset();
    m_errorLabel->clear();
    m_errorLabel->hide();
    m_titleLabel->setText(kNone);
    m_urlLabel->setText(kNone);
    m_readinessLabel->setText(kNone);
    m_revisionLabel->setText(kNone);
    m_revisionLabel->setToolTip(QString());
    m_coverageLabel->setText(kNone);
    m_elements->clear();
    m_text->clear();
    m_copyButton->setEnabled(false);
}

void ObservationPanel::showObservation(const BrowserObservation &observation)
{
    clear();
    m_observation = observation;
    m_titleLabel->setText(observation.title.isEmpty() ? kNone : observation.title);
    // The encoded form: exactly the URL the observation names, without IDN or
    // percent-decoding that could make one host look like another.
    m_urlLabel->setText(QString::fromUtf8(observation.url.toEncoded()));
    m_readinessLabel->setText(observation.readiness ? readinessString(*observation.readiness)
                                                    : kNone);
    m_revisionLabel->setText(shortRevision(observation.revision));
    m_revisionLabel->setToolTip(observation.revision);
    showCoverage(observation);

    QList<QTreeWidgetItem *> items;
    items.reserve(observation.elements.size());
    for (const ElementRecord &element : observation.elements) {
        auto *item = new QTreeWidgetItem(
            QStringList{element.role, element.name, stateSummary(element.state)});
        item->setToolTip(1, element.name);
        items.append(item);
    }
    m_elements->addTopLevelItems(items);
    m_text->setPlainText(observation.text);
    m_copyButton->setEnabled(true);
}

void ObservationPanel::showError(const Error &error)
{
    clear();
    m_error = error;
    m_errorLabel->setText(error.code + QStringLiteral(": ") + error.message);
    m_errorLabel->show();
}

void ObservationPanel::showCoverage(const BrowserObservation &observation)
{
    QStringList parts;
    parts.append(tr("%n control(s)", nullptr, int(observation.elements.size())));
    if (observation.coverage.scanLimitReached || observation.coverage.nextCursor)
        parts.append(tr("more controls not shown"));
    const TextCoverage &text = observation.textCoverage;
    if (text.nodeLimitReached || text.textLimitReached || text.omittedTextBytes > 0)
        parts.append(tr("text truncated (%n byte(s) omitted)", nullptr,
                        int(qMin<qint64>(text.omittedTextBytes, std::numeric_limits<int>::max()))));
    m_coverageLabel->setText(parts.join(QStringLiteral("; ")));
}

QString ObservationPanel::stateSummary(const ElementState &state)
{
    QStringList parts;
    if (state.disabled)
        parts.append(QStringLiteral("disabled"));
    switch (state.checked) {
    case CheckedState::None:
        break;
    case CheckedState::False:
        parts.append(QStringLiteral("unchecked"));
        break;
    case CheckedState::True:
        parts.append(QStringLiteral("checked"));
        break;
    case CheckedState::Mixed:
        parts.append(QStringLiteral("mixed"));
        break;
    }
    if (state.selected)
        parts.append(*state.selected ? QStringLiteral("selected") : QStringLiteral("not selected"));
    if (state.expanded)
        parts.append(*state.expanded ? QStringLiteral("expanded") : QStringLiteral("collapsed"));
    if (state.required)
        parts.append(QStringLiteral("required"));
    return parts.join(QStringLiteral(", "));
}

QString ObservationPanel::shortRevision(const QString &revision)
{
    if (revision.size() <= kShortRevisionChars)
        return revision;
    return revision.left(kShortRevisionChars) + QStringLiteral("\u2026");
}

void ObservationPanel::copyJson()
{
    if (!m_observation)
        return;
    QGuiApplication::clipboard()->setText(
        QString::fromUtf8(QJsonDocument(m_observation->toJson()).toJson(QJsonDocument::Indented)));
}

} // namespace veetbot
