#include "NewTask.h"

#include "runs/ModelEndpoint.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include <csignal>

namespace veetbot {

namespace {
const QString kModelUrlKey = QStringLiteral("model/url");
const QString kModelKey = QStringLiteral("model/name");
} // namespace

NewTaskDialog::NewTaskDialog(const QList<BrowserProfile> &ready, QSettings &settings,
                             QWidget *parent)
    : QDialog(parent), m_settings(settings), m_ready(ready)
{
    setWindowTitle(QStringLiteral("New task — Veetbot Workbench"));
    setAccessibleName(QStringLiteral("New task"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_website = new QComboBox(this);
    m_website->setAccessibleName(QStringLiteral("Website"));
    for (const BrowserProfile &profile : m_ready)
        m_website->addItem(profile.allowedOrigins.isEmpty()
                               ? profile.id.toString(QUuid::WithoutBraces)
                               : profile.allowedOrigins.constFirst().toString());
    form->addRow(QStringLiteral("&Website:"), m_website);
    m_task = new QPlainTextEdit(this);
    m_task->setAccessibleName(QStringLiteral("Task"));
    m_task->setTabChangesFocus(true);
    m_task->setPlaceholderText(
        QStringLiteral("What the agent should do on this website, in your words."));
    form->addRow(QStringLiteral("&Task:"), m_task);
    m_modelUrl = new QLineEdit(m_settings.value(kModelUrlKey).toString(), this);
    m_modelUrl->setAccessibleName(QStringLiteral("Model endpoint"));
    m_modelUrl->setPlaceholderText(QStringLiteral("http://127.0.0.1:8080/v1"));
    form->addRow(QStringLiteral("Model &endpoint:"), m_modelUrl);
    m_model = new QLineEdit(m_settings.value(kModelKey).toString(), this);
    m_model->setAccessibleName(QStringLiteral("Model name"));
    form->addRow(QStringLiteral("Model &name:"), m_model);
    layout->addLayout(form);
    auto *note = new QLabel(
        QStringLiteral("The agent asks you here before any action that needs your approval. Its "
                       "API key comes from your keyring (veetbot model set-key)."),
        this);
    note->setAccessibleName(QStringLiteral("About the run"));
    note->setWordWrap(true);
    layout->addWidget(note);
    m_problem = new QLabel(this);
    m_problem->setAccessibleName(QStringLiteral("Problem"));
    m_problem->setWordWrap(true);
    layout->addWidget(m_problem);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton *start = buttons->addButton(QStringLiteral("&Start"), QDialogButtonBox::AcceptRole);
    start->setAccessibleName(QStringLiteral("Start"));
    start->setDefault(true);
    buttons->button(QDialogButtonBox::Cancel)->setAccessibleName(QStringLiteral("Cancel"));
    connect(buttons, &QDialogButtonBox::accepted, this, &NewTaskDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &NewTaskDialog::reject);
    layout->addWidget(buttons);
    if (m_ready.isEmpty()) {
        m_problem->setText(QStringLiteral("No website is signed in yet: add one in Website "
                                          "Access and sign in first."));
        start->setEnabled(false);
    }
    // A problem said is about what was there: an edit clears it.
    const auto clearProblem = [this] {
        if (!m_ready.isEmpty())
            m_problem->clear();
    };
    connect(m_task, &QPlainTextEdit::textChanged, this, clearProblem);
    connect(m_modelUrl, &QLineEdit::textEdited, this, clearProblem);
    connect(m_model, &QLineEdit::textEdited, this, clearProblem);
    m_task->setMinimumHeight(120);
    m_task->setFocus();
    resize(600, 440);
}

TaskLaunch NewTaskDialog::launch() const
{
    const int index = m_website->currentIndex();
    return TaskLaunch{index >= 0 && index < m_ready.size() ? m_ready.at(index).id : QUuid(),
                      m_task->toPlainText().trimmed(), m_modelUrl->text().trimmed(),
                      m_model->text().trimmed()};
}

QString NewTaskDialog::problem() const
{
    return m_problem->text();
}

void NewTaskDialog::accept()
{
    const TaskLaunch chosen = launch();
    QString problem;
    if (chosen.profile.isNull())
        problem = QStringLiteral("Choose a website.");
    else if (chosen.task.isEmpty())
        problem = QStringLiteral("Write the task.");
    else if (chosen.task.size() > kMaxTaskCharacters)
        problem = QStringLiteral("The task is longer than %1 characters.").arg(kMaxTaskCharacters);
    else if (!ModelEndpoint::parse(chosen.modelUrl))
        problem = ModelEndpoint::urlRefused().message;
    else if (chosen.model.isEmpty() || chosen.model.size() > 128)
        problem = QStringLiteral("Give the model's name (at most 128 characters).");
    if (!problem.isEmpty()) {
        m_problem->setText(problem);
        return;
    }
    m_settings.setValue(kModelUrlKey, chosen.modelUrl);
    m_settings.setValue(kModelKey, chosen.model);
    m_settings.sync();
    QDialog::accept();
}

TaskLauncher::TaskLauncher(QString program, QObject *parent)
    : QObject(parent),
      m_program(program.isEmpty()
                    ? QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot")
                    : std::move(program))
{
}

TaskLauncher::~TaskLauncher()
{
    // The workbench is going: its runs stop as the owner would stop them.
    for (const QPointer<QProcess> &process : std::as_const(m_processes)) {
        if (process && process->state() != QProcess::NotRunning) {
            ::kill(pid_t(process->processId()), SIGINT);
            process->waitForFinished(10000);
        }
    }
}

bool TaskLauncher::start(const TaskLaunch &launch)
{
    auto *process = new QProcess(this);
    process->setProgram(m_program);
    process->setArguments({QStringLiteral("run"), QStringLiteral("--profile"),
                           launch.profile.toString(QUuid::WithoutBraces), QStringLiteral("--task"),
                           launch.task, QStringLiteral("--model-url"), launch.modelUrl,
                           QStringLiteral("--model"), launch.model, QStringLiteral("--approver"),
                           QStringLiteral("workbench")});
    // Its answer and summary are the owner's to read in the runs view; nothing is kept here.
    process->setStandardOutputFile(QProcess::nullDevice());
    process->setStandardErrorFile(QProcess::nullDevice());
    process->setStandardInputFile(QProcess::nullDevice());
    connect(process, &QProcess::finished, this, [this, process](int exitCode) {
        m_processes.removeAll(process);
        process->deleteLater();
        Q_EMIT finished(exitCode);
    });
    process->start();
    if (!process->waitForStarted(10000)) {
        process->deleteLater();
        return false;
    }
    m_processes.append(process);
    return true;
}

bool TaskLauncher::isOurs(qint64 pid) const
{
    for (const QPointer<QProcess> &process : m_processes) {
        if (process && process->state() == QProcess::Running && process->processId() == pid)
            return true;
    }
    return false;
}

bool TaskLauncher::stop(qint64 pid)
{
    if (!isOurs(pid))
        return false;
    return ::kill(pid_t(pid), SIGINT) == 0;
}

int TaskLauncher::running() const
{
    int count = 0;
    for (const QPointer<QProcess> &process : m_processes)
        count += process && process->state() != QProcess::NotRunning;
    return count;
}

} // namespace veetbot
