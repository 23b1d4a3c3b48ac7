#pragma once

#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"

#include <QByteArray>
#include <QSslCertificate>
#include <QWebEnginePage>

#include <functional>
#include <optional>

namespace veetbot {

// A QWebEnginePage that keeps every main-frame navigation and redirect hop on the policy's
// exact origins, lets subframes load only public HTTPS, refuses popups before their first
// request, denies every permission, file chooser and JS dialog, and drops console messages
// (never logs them). Certificates are accepted only when the test CA setting names the root
// of the chain. It reports what it refused, never the refused URL.
class GuardedPage : public QWebEnginePage
{
    Q_OBJECT
public:
    GuardedPage(OriginPolicy policy, TestOverrides overrides, QWebEngineProfile *profile,
                QObject *parent = nullptr);

    // Flags of the operation in progress, cleared by the provider at its start.
    void resetOperationFlags();
    // While set, a main-frame navigation the policy allows must also pass `allows` (the
    // document fence of an act under a dispatch constraint); cleared with an empty function.
    void setDocumentFence(std::function<bool(const QUrl &)> allows) { m_fence = std::move(allows); }
    bool refusedMainFrameNavigation() const { return m_refusedMainFrame; }
    // The last main-frame navigation refused (the owner's sign-in view reads its origin).
    QUrl lastRefusedUrl() const { return m_lastRefused; }
    bool dismissedBeforeUnload() const { return m_dismissedBeforeUnload; }
    // While set, a beforeunload prompt is answered "leave" (NavigateRequest::discardUnsaved):
    // the input the page holds is discarded, nothing is sent. Cleared by resetOperationFlags().
    void setLeavesUnsavedInput(bool leave) { m_leavesUnsavedInput = leave; }
    int refusedPopups() const { return m_refusedPopups; }

    // Applies the confinement settings to a page's settings object.
    static void applySettings(QWebEngineSettings *settings);

Q_SIGNALS:
    void mainFrameNavigationRefused();
    // The page's beforeunload prompt was answered "stay": the navigation that asked never
    // starts (no load is started or finished for it).
    void beforeUnloadDismissed();
    // A permission the page asked for was answered, with the answer given (always a denial).
    void featurePermissionAnswered(QWebEnginePage::Feature feature,
                                   QWebEnginePage::PermissionPolicy policy);

protected:
    bool acceptNavigationRequest(const QUrl &url, NavigationType type, bool isMainFrame) override;
    QWebEnginePage *createWindow(WebWindowType type) override;
    void javaScriptAlert(const QUrl &securityOrigin, const QString &msg) override;
    bool javaScriptConfirm(const QUrl &securityOrigin, const QString &msg) override;
    bool javaScriptPrompt(const QUrl &securityOrigin, const QString &msg,
                          const QString &defaultValue, QString *result) override;
    void javaScriptConsoleMessage(JavaScriptConsoleMessageLevel level, const QString &message,
                                  int lineNumber, const QString &sourceID) override;
    QStringList chooseFiles(FileSelectionMode mode, const QStringList &oldFiles,
                            const QStringList &acceptedMimeTypes) override;

private:
    void handleCertificateError(const class QWebEngineCertificateError &error);

    OriginPolicy m_policy;
    TestOverrides m_overrides;
    std::optional<QSslCertificate> m_testCa; // only with VEETBOT_TEST_CA
    bool m_refusedMainFrame = false;
    std::function<bool(const QUrl &)> m_fence;
    QUrl m_lastRefused;
    bool m_dismissedBeforeUnload = false;
    bool m_leavesUnsavedInput = false;
    int m_refusedPopups = 0;
};

} // namespace veetbot
