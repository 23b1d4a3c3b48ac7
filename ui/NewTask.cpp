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
#include <QUrl>
#include <QVBoxLayout>

#include <csignal>

namespace veetbot {

namespace {
const QString kModelUrlKey = QStringLiteral("model/url");
const QString kModelKey = QStringLiteral("model/name");
constexpr double kMaxPrice = 10'000;

QString priceKey(const QString &model, const char *which)
{
    // A model's name may hold any character; the key holds its percent-encoding.
    return QStringLiteral("prices/") + QString::fromLatin1(QUrl::toPercentEncoding(model)) + u'/' +
           QLatin1String(which);
}

std::optional<double> priceOf(const QString &text)
{
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    if (!ok || !(value >= 0) || value > kMaxPrice)
        return std::nullopt;
    return value;
}
} // namespace

ModelSettingsBox::ModelSettingsBox(QSettings &settings, QWidget *parent)
    : QGroupBox(QStringLiteral("Model for new tasks"), parent), m_settings(settings)
{
    setAccessibleName(QStringLiteral("Model for new tasks"));
    auto *form = new QFormLayout(this);
    m_url = new QLineEdit(m_settings.value(kModelUrlKey).toString(), this);
    m_url->setAccessibleName(QStringLiteral("Default model endpoint"));
    m_url->setPlaceholderText(QStringLiteral("http://127.0.0.1:8080/v1"));
    form->addRow(QStringLiteral("Endpoint:"), m_url);
    m_model = new QLineEdit(m_settings.value(kModelKey).toString(), this);
    m_model->setAccessibleName(QStringLiteral("Default model name"));
    form->addRow(QStringLiteral("Model:"), m_model);
    m_priceIn = new QLineEdit(this);
    m_priceIn->setAccessibleName(QStringLiteral("Price of prompt tokens"));
    m_priceIn->setPlaceholderText(QStringLiteral("USD per million prompt tokens"));
    form->addRow(QStringLiteral("Prompt price:"), m_priceIn);
    m_priceOut = new QLineEdit(this);
    m_priceOut->setAccessibleName(QStringLiteral("Price of completion tokens"));
    m_priceOut->setPlaceholderText(QStringLiteral("USD per million completion tokens"));
    form->addRow(QStringLiteral("Completion price:"), m_priceOut);
    auto *saveButton = new QPushButton(QStringLiteral("Sa&ve model"), this);
    saveButton->setAccessibleName(QStringLiteral("Save model settings"));
    m_status = new QLabel(
        QStringLiteral("Without prices a run has a cap of 2,000,000 tokens instead of USD 30."),
        this);
    m_status->setAccessibleName(QStringLiteral("Model settings status"));
    m_status->setWordWrap(true);
    form->addRow(saveButton, m_status);
    connect(saveButton, &QPushButton::clicked, this, &ModelSettingsBox::save);
    connect(m_model, &QLineEdit::textChanged, this, &ModelSettingsBox::loadPrices);
    loadPrices();
}

QString ModelSettingsBox::statusText() const
{
    return m_status->text();
}

std::optional<std::pair<double, double>> ModelSettingsBox::prices(const QSettings &settings,
                                                                  const QString &model)
{
    const std::optional<double> in = priceOf(settings.value(priceKey(model, "in")).toString());
    const std::optional<double> out = priceOf(settings.value(priceKey(model, "out")).toString());
    if (model.isEmpty() || !in || !out)
        return std::nullopt;
    return std::pair{*in, *out};
}

void ModelSettingsBox::loadPrices()
{
    const auto kept = prices(m_settings, m_model->text().trimmed());
    m_priceIn->setText(kept ? QString::number(kept->first) : QString());
    m_priceOut->setText(kept ? QString::number(kept->second) : QString());
}

void ModelSettingsBox::save()
{
    const QString url = m_url->text().trimmed();
    const QString model = m_model->text().trimmed();
    const bool priced =
        !m_priceIn->text().trimmed().isEmpty() || !m_priceOut->text().trimmed().isEmpty();
    if (!url.isEmpty() && !ModelEndpoint::parse(url)) {
        m_status->setText(ModelEndpoint::urlRefused().message);
        return;
    }
    if (model.size() > 128) {
        m_status->setText(QStringLiteral("The model's name is at most 128 characters."));
        return;
    }
    if (priced &&
        (model.isEmpty() || !priceOf(m_priceIn->text()) || !priceOf(m_priceOut->text()))) {
        m_status->setText(QStringLiteral("Prices are a model's, both or neither: USD per million "
                                         "tokens, 0 to 10,000. Nothing was saved."));
        return;
    }
    m_settings.setValue(kModelUrlKey, url);
    m_settings.setValue(kModelKey, model);
    if (!model.isEmpty()) {
        if (priced) {
            m_settings.setValue(priceKey(model, "in"), m_priceIn->text().trimmed());
            m_settings.setValue(priceKey(model, "out"), m_priceOut->text().trimmed());
        } else {
            m_settings.remove(priceKey(model, "in"));
            m_settings.remove(priceKey(model, "out"));
        }
    }
    m_settings.sync();
    m_status->setText(priced ? QStringLiteral("Saved: runs of %1 have the USD 30 cap.").arg(model)
                             : QStringLiteral("Saved: runs have the token cap (no prices)."));
}

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
    TaskLaunch chosen{index >= 0 && index < m_ready.size() ? m_ready.at(index).id : QUuid(),
                      m_task->toPlainText().trimmed(),
                      m_modelUrl->text().trimmed(),
                      m_model->text().trimmed(),
                      std::nullopt,
                      std::nullopt};
    if (const auto prices = ModelSettingsBox::prices(m_settings, chosen.model)) {
        chosen.priceIn = prices->first;
        chosen.priceOut = prices->second;
    }
    return chosen;
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
    if (launch.priceIn && launch.priceOut)
        process->setArguments(process->arguments()
                              << QStringLiteral("--price-in") << QString::number(*launch.priceIn)
                              << QStringLiteral("--price-out")
                              << QString::number(*launch.priceOut));
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
