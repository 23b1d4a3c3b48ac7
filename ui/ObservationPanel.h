#pragma once

#include "domain/BrowserObservation.h"
#include "domain/Result.h"

#include <QWidget>

#include <optional>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace veetbot {

// Shows the last result of a browser operation: either the BrowserObservation (header,
// visible controls, readable text, "Copy JSON") or a failure as its code and fixed message.
// It displays only what the observation carries, always as plain text (never as rich text
// or HTML), and never reaches into the page for anything else.
class ObservationPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ObservationPanel(QWidget *parent = nullptr);

    void showObservation(const BrowserObservation &observation);
    void showError(const Error &error);
    void clear();

    // What is shown now (tests, and the window's status line).
    const std::optional<BrowserObservation> &observation() const { return m_observation; }
    const std::optional<Error> &error() const { return m_error; }

    // "disabled, checked, required"; empty for a control with no notable state.
    static QString stateSummary(const ElementState &state);
    // The first characters of an opaque revision, enough to tell two apart at a glance.
    static QString shortRevision(const QString &revision);

public Q_SLOTS:
    void copyJson();

private:
    void showCoverage(const BrowserObservation &observation);

    std::optional<BrowserObservation> m_observation;
    std::optional<Error> m_error;

    QLabel *m_errorLabel = nullptr;
    QLabel *m_titleLabel = nullptr;
    QLabel *m_urlLabel = nullptr;
    QLabel *m_readinessLabel = nullptr;
    QLabel *m_revisionLabel = nullptr;
    QLabel *m_coverageLabel = nullptr;
    QTreeWidget *m_elements = nullptr;
    QPlainTextEdit *m_text = nullptr;
    QPushButton *m_copyButton = nullptr;
};

} // namespace veetbot
