#include "WorkbenchWindow.h"

#include "ObservationPanel.h"
#include "WebEngineProvider.h"
#include "net/EgressProxy.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QNetworkProxy>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>

namespace veetbot {

namespace {

const QString kProxyHost = QStringLiteral("127.0.0.1");

QString statusFor(const Error &error)
{
    return error.code + QStringLiteral(": ") + error.message;
}

} // namespace

EgressProxy *WorkbenchWindow::startEgressProxy(const TestOverrides &overrides, QObject *parent)
{
    auto *proxy = new EgressProxy(overrides, parent);
    if (!proxy->listenTcp()) {
        delete proxy;
        return nullptr;
    }
    QNetworkProxy::setApplicationProxy(
        QNetworkProxy(QNetworkProxy::HttpProxy, kProxyHost, proxy->tcpPort()));
    return proxy;
}

Result<OriginPolicy> WorkbenchWindow::parseAllowedOrigins(const QString &text,
                                                          const TestOverrides &overrides)
{
    static const QRegularExpression separators(QStringLiteral("[\\s,]+"));
    QList<Origin> origins;
    for (const QString &entry : text.split(separators, Qt::SkipEmptyParts)) {
        Result<Origin> origin = Origin::parse(entry, overrides);
        if (!origin)
            return origin.error();
        origins.append(*origin);
    }
    return OriginPolicy::create(std::move(origins));
}

WorkbenchWindow::WorkbenchWindow(const EgressProxy *egressProxy, TestOverrides overrides,
                                 const QStringList &allowedOrigins, const QString &address,
                                 QWidget *parent)
    : QMainWindow(parent), m_egressProxy(egressProxy), m_overrides(std::move(overrides))
{
    setWindowTitle(QStringLiteral("Veetbot Workbench \u2014 developer preview"));

    m_originsEdit = new QLineEdit(allowedOrigins.join(QLatin1Char(' ')), this);
    m_originsEdit->setObjectName(QStringLiteral("allowedOrigins"));
    m_originsEdit->setPlaceholderText(QStringLiteral("https://shop.example https://login.example"));
    m_originsEdit->setToolTip(
        tr("Exact HTTPS origins the browser may open, separated by spaces or commas"));
    m_originsEdit->setClearButtonEnabled(true);

    m_addressEdit = new QLineEdit(address, this);
    m_addressEdit->setObjectName(QStringLiteral("address"));
    m_addressEdit->setPlaceholderText(QStringLiteral("https://shop.example/"));
    m_addressEdit->setClearButtonEnabled(true);
    connect(m_addressEdit, &QLineEdit::returnPressed, this, &WorkbenchWindow::open);

    m_openButton = new QPushButton(tr("Open"), this);
    m_openButton->setObjectName(QStringLiteral("open"));
    connect(m_openButton, &QPushButton::clicked, this, &WorkbenchWindow::open);

    m_observeButton = new QPushButton(tr("Observe"), this);
    m_observeButton->setObjectName(QStringLiteral("observe"));
    m_observeButton->setToolTip(tr("Observe the current page again"));
    connect(m_observeButton, &QPushButton::clicked, this, &WorkbenchWindow::observe);

    auto *originsLabel = new QLabel(tr("Allowed origins"), this);
    originsLabel->setBuddy(m_originsEdit);
    auto *addressLabel = new QLabel(tr("Address"), this);
    addressLabel->setBuddy(m_addressEdit);

    auto *controls = new QWidget(this);
    auto *row = new QHBoxLayout(controls);
    row->setContentsMargins(4, 2, 4, 2);
    row->addWidget(originsLabel);
    row->addWidget(m_originsEdit, 2);
    row->addWidget(addressLabel);
    row->addWidget(m_addressEdit, 3);
    row->addWidget(m_openButton);
    row->addWidget(m_observeButton);
    auto *toolBar = addToolBar(tr("Browser"));
    toolBar->setObjectName(QStringLiteral("browserToolBar"));
    toolBar->setMovable(false);
    toolBar->setFloatable(false);
    toolBar->addWidget(controls);

    m_placeholder = new QLabel(tr("No page open. Enter the allowed origins and an address, "
                                  "then press Open."),
                               this);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_browserArea = new QStackedWidget(this);
    m_browserArea->addWidget(m_placeholder);

    m_panel = new ObservationPanel(this);
    m_panel->setObjectName(QStringLiteral("observationPanel"));

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("splitter"));
    splitter->addWidget(m_browserArea);
    splitter->addWidget(m_panel);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);
    setCentralWidget(splitter);

    auto *caveat = new QLabel(tr("Developer preview: the page runs in this process; "
                                 "agent-operated browsers run isolated in the veetbot CLI."),
                              this);
    caveat->setObjectName(QStringLiteral("previewCaveat"));
    statusBar()->addPermanentWidget(caveat);
    statusBar()->showMessage(tr("Ready."));

    resize(1400, 900);
    updateButtons();
}

WorkbenchWindow::~WorkbenchWindow()
{
    // The view lives in this window's widget tree; the provider deletes it before its
    // profile, so it has to go before the widgets do.
    releaseProvider();
}

BrowserProvider *WorkbenchWindow::provider() const
{
    return m_provider;
}

bool WorkbenchWindow::egressProxyActive() const
{
    if (!m_egressProxy || m_egressProxy->tcpPort() == 0)
        return false;
    const QNetworkProxy proxy = QNetworkProxy::applicationProxy();
    return proxy.type() == QNetworkProxy::HttpProxy && proxy.hostName() == kProxyHost &&
           proxy.port() == m_egressProxy->tcpPort();
}

bool WorkbenchWindow::ensureProvider(const OriginPolicy &policy)
{
    if (m_provider && m_providerOrigins == policy.origins())
        return true;
    releaseProvider();
    // Fail closed: a browser that would connect directly is never created.
    if (!egressProxyActive())
        return false;
    m_provider = new WebEngineProvider(policy, m_overrides, this, m_browserArea);
    m_providerOrigins = policy.origins();
    QWebEngineView *view = m_provider->view();
    view->setObjectName(QStringLiteral("browserView"));
    m_browserArea->addWidget(view);
    m_browserArea->setCurrentWidget(view);
    return true;
}

void WorkbenchWindow::releaseProvider()
{
    if (!m_provider)
        return;
    ++m_generation;
    WebEngineProvider *old = m_provider;
    m_provider = nullptr;
    m_providerOrigins.clear();
    old->close();
    delete old; // takes its view out of the browser area
    m_browserArea->setCurrentWidget(m_placeholder);
    m_busy = false;
    updateButtons();
}

void WorkbenchWindow::open()
{
    if (m_busy)
        return;
    const Result<OriginPolicy> policy = parseAllowedOrigins(m_originsEdit->text(), m_overrides);
    if (!policy) {
        fail(policy.error());
        return;
    }
    const Result<QUrl> url = PublicUrl::parse(m_addressEdit->text().trimmed(), m_overrides);
    if (!url) {
        fail(url.error());
        return;
    }
    if (!ensureProvider(*policy)) {
        fail(Error::fromReason(ReasonCode::ProviderUnavailable));
        return;
    }
    begin(tr("Opening the page\u2026"));
    const QPointer<WorkbenchWindow> self(this);
    const quint64 generation = m_generation;
    m_provider->navigate({*url}, [self, generation](Result<BrowserObservation> result) {
        if (self && self->m_generation == generation)
            self->finish(result, tr("Page opened."));
    });
}

void WorkbenchWindow::observe()
{
    if (m_busy || !m_provider)
        return;
    begin(tr("Observing the page\u2026"));
    const QPointer<WorkbenchWindow> self(this);
    const quint64 generation = m_generation;
    m_provider->observe(ObserveRequest(), [self, generation](Result<BrowserObservation> result) {
        if (self && self->m_generation == generation)
            self->finish(result, tr("Page observed."));
    });
}

void WorkbenchWindow::begin(const QString &status)
{
    m_busy = true;
    updateButtons();
    statusBar()->showMessage(status);
}

void WorkbenchWindow::finish(const Result<BrowserObservation> &result, const QString &successStatus)
{
    m_busy = false;
    updateButtons();
    if (!result) {
        fail(result.error());
        return;
    }
    m_panel->showObservation(result.value());
    statusBar()->showMessage(successStatus);
    Q_EMIT operationFinished();
}

void WorkbenchWindow::fail(const Error &error)
{
    m_panel->showError(error);
    statusBar()->showMessage(statusFor(error));
    Q_EMIT operationFinished();
}

void WorkbenchWindow::updateButtons()
{
    m_openButton->setEnabled(!m_busy);
    m_observeButton->setEnabled(!m_busy && m_provider);
}

} // namespace veetbot
