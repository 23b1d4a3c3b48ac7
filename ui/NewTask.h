#pragma once

#include "domain/profile/BrowserProfile.h"

#include <QDialog>
#include <QGroupBox>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QUuid>

#include <optional>
#include <utility>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSettings;

namespace veetbot {

// What "New task" starts: `veetbot run` on one READY website with the owner's task and the
// model endpoint (docs/runs.md).
struct TaskLaunch
{
    QUuid profile;
    QString task;
    QString modelUrl;
    QString model;
    // The model's prices (USD per million prompt and completion tokens) from Settings: with
    // both, the run's money cap applies; without, its token cap.
    std::optional<double> priceIn;
    std::optional<double> priceOut;
};

// The model for new tasks, in Settings: its endpoint and name (what New task starts with) and
// each model's prices, kept in the workbench's settings file. Prices are both or neither,
// 0–10,000 USD per million tokens.
class ModelSettingsBox : public QGroupBox
{
    Q_OBJECT
public:
    ModelSettingsBox(QSettings &settings, QWidget *parent = nullptr);
    QString statusText() const;
    // The prices kept for `model`, when both are.
    static std::optional<std::pair<double, double>> prices(const QSettings &settings,
                                                           const QString &model);

private:
    void loadPrices();
    void save();

    QSettings &m_settings;
    QLineEdit *m_url = nullptr;
    QLineEdit *m_model = nullptr;
    QLineEdit *m_priceIn = nullptr;
    QLineEdit *m_priceOut = nullptr;
    QLabel *m_status = nullptr;
};

// "New task": the website (READY ones), the task in the owner's words, and the model's
// endpoint and name, remembered for next time in the workbench's settings. Start checks every
// field (a refused endpoint is said and nothing starts); Cancel starts nothing.
class NewTaskDialog : public QDialog
{
    Q_OBJECT
public:
    // The longest task accepted here.
    static constexpr int kMaxTaskCharacters = 4096;

    NewTaskDialog(const QList<BrowserProfile> &ready, QSettings &settings,
                  QWidget *parent = nullptr);
    TaskLaunch launch() const;
    QString problem() const;

    void accept() override;

private:
    QSettings &m_settings;
    QList<BrowserProfile> m_ready;
    QComboBox *m_website = nullptr;
    QPlainTextEdit *m_task = nullptr;
    QLineEdit *m_modelUrl = nullptr;
    QLineEdit *m_model = nullptr;
    QLabel *m_problem = nullptr;
};

// The workbench's task runs: each a `veetbot run ... --approver workbench` child process, so
// its approvals come here as cards and it shows in the runs view. Stop is the run's own
// cancellation (SIGINT, as Ctrl-C on a terminal): an act that may have reached the site is
// reported as uncertain, never as not done. Only runs started here can be stopped here.
class TaskLauncher : public QObject
{
    Q_OBJECT
public:
    // `program`: the veetbot program (beside the workbench when empty).
    explicit TaskLauncher(QString program = QString(), QObject *parent = nullptr);
    ~TaskLauncher() override;

    bool start(const TaskLaunch &launch);
    // Whether the process `pid` is a task run started here and still running.
    bool isOurs(qint64 pid) const;
    // Asks that run to stop; false when it is not one of ours.
    bool stop(qint64 pid);
    int running() const;

Q_SIGNALS:
    // A run started here ended, with `veetbot run`'s exit status (docs/runs.md).
    void finished(int exitCode);

private:
    QString m_program;
    QList<QPointer<QProcess>> m_processes;
};

} // namespace veetbot
