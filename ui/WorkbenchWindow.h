#pragma once

#include "domain/BrowserObservation.h"
#include "domain/Origin.h"
#include "domain/OriginPolicy.h"
#include "domain/Result.h"
#include "domain/TestOverrides.h"

#include <QMainWindow>
#include <QPointer>

class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;

namespace veetbot {

class BrowserProvider;
class EgressProxy;
class ObservationPanel;
class WebEngineProvider;

// The workbench's main window, developer preview: an in-process WebEngineProvider bound to
// the origins the user typed, its live view, and the last observation. Every browser
// connection goes through the process's egress proxy; without it no browser is created.
// The status line reports only fixed messages and error codes, never page text.
//
// Until the isolated profile service exists the automated page runs in this process; the
// window title and status bar say so.
class WorkbenchWindow : public QMainWindow
{
    Q_OBJECT
public:
    // egressProxy: the process's proxy from startEgressProxy(). allowedOrigins and address
    // pre-fill the fields; nothing is opened until open() is called.
    WorkbenchWindow(const EgressProxy *egressProxy, TestOverrides overrides,
                    const QStringList &allowedOrigins = {}, const QString &address = {},
                    QWidget *parent = nullptr);
    ~WorkbenchWindow() override;

    // Starts the process's egress proxy on loopback TCP and makes it the application proxy,
    // which Qt WebEngine hands to Chromium. Call once, before the first browser profile
    // exists. Returns nullptr when it cannot listen.
    static EgressProxy *startEgressProxy(const TestOverrides &overrides, QObject *parent);

    // Space- or comma-separated exact HTTPS origins; any invalid entry, none, or too many is
    // tool.browser.url_disallowed.
    static Result<OriginPolicy> parseAllowedOrigins(const QString &text,
                                                    const TestOverrides &overrides);

    BrowserProvider *provider() const;
    ObservationPanel *panel() const { return m_panel; }
    bool isBusy() const { return m_busy; }

public Q_SLOTS:
    // Binds a browser to the allowed origins (replacing the current one when the set
    // changed) and navigates to the address.
    void open();
    // Observes the current page again.
    void observe();

Q_SIGNALS:
    // After every open() or observe(), whether it succeeded or not.
    void operationFinished();

private:
    bool egressProxyActive() const;
    bool ensureProvider(const OriginPolicy &policy);
    void releaseProvider();
    void begin(const QString &status);
    void finish(const Result<BrowserObservation> &result, const QString &successStatus);
    void fail(const Error &error);
    void updateButtons();

    QPointer<const EgressProxy> m_egressProxy;
    TestOverrides m_overrides;
    WebEngineProvider *m_provider = nullptr;
    QList<Origin> m_providerOrigins;
    // Bumped whenever a provider goes away, so its late callbacks are ignored.
    quint64 m_generation = 0;
    bool m_busy = false;

    QLineEdit *m_originsEdit = nullptr;
    QLineEdit *m_addressEdit = nullptr;
    QPushButton *m_openButton = nullptr;
    QPushButton *m_observeButton = nullptr;
    QStackedWidget *m_browserArea = nullptr;
    QLabel *m_placeholder = nullptr;
    ObservationPanel *m_panel = nullptr;
};

} // namespace veetbot
