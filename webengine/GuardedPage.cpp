#include "GuardedPage.h"

#include "domain/web/Origin.h"

#include <QAuthenticator>
#include <QCoreApplication>
#include <QFile>
#include <QSslCertificate>
#include <QWebEngineCertificateError>
#include <QWebEngineFileSystemAccessRequest>
#include <QWebEngineFullScreenRequest>
#include <QWebEngineQuotaRequest>
#include <QWebEngineRegisterProtocolHandlerRequest>
#include <QWebEngineSettings>

#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace veetbot {

GuardedPage::GuardedPage(OriginPolicy policy, TestOverrides overrides, QWebEngineProfile *profile,
                         QObject *parent)
    : QWebEnginePage(profile, parent), m_policy(std::move(policy)),
      m_overrides(std::move(overrides))
{
    applySettings(settings());

    if (!m_overrides.caPath().isEmpty()) {
        QFile file(m_overrides.caPath());
        if (file.open(QIODevice::ReadOnly)) {
            const QList<QSslCertificate> certificates =
                QSslCertificate::fromData(file.readAll(), QSsl::Pem);
            if (certificates.size() == 1)
                m_testCa = certificates.first();
        }
    }

    connect(this, &QWebEnginePage::certificateError, this, &GuardedPage::handleCertificateError);
    connect(this, &QWebEnginePage::featurePermissionRequested, this,
            [this](const QUrl &origin, Feature feature) {
                const PermissionPolicy answer = PermissionDeniedByUser;
                setFeaturePermission(origin, feature, answer);
                Q_EMIT featurePermissionAnswered(feature, answer);
            });
    connect(this, &QWebEnginePage::fileSystemAccessRequested, this,
            [](QWebEngineFileSystemAccessRequest request) { request.reject(); });
    connect(this, &QWebEnginePage::quotaRequested, this,
            [](QWebEngineQuotaRequest request) { request.reject(); });
    connect(this, &QWebEnginePage::registerProtocolHandlerRequested, this,
            [](QWebEngineRegisterProtocolHandlerRequest request) { request.reject(); });
    connect(this, &QWebEnginePage::fullScreenRequested, this,
            [](QWebEngineFullScreenRequest request) { request.reject(); });
    connect(this, &QWebEnginePage::authenticationRequired, this,
            [](const QUrl &, QAuthenticator *authenticator) { *authenticator = QAuthenticator(); });
    connect(this, &QWebEnginePage::proxyAuthenticationRequired, this,
            [](const QUrl &, QAuthenticator *authenticator, const QString &) {
                *authenticator = QAuthenticator();
            });
    connect(this, &QWebEnginePage::newWindowRequested, this,
            [this](QWebEngineNewWindowRequest &) { ++m_refusedPopups; });
}

void GuardedPage::applySettings(QWebEngineSettings *s)
{
    s->setAttribute(QWebEngineSettings::JavascriptCanOpenWindows, false);
    s->setAttribute(QWebEngineSettings::JavascriptCanAccessClipboard, false);
    s->setAttribute(QWebEngineSettings::JavascriptCanPaste, false);
    s->setAttribute(QWebEngineSettings::ErrorPageEnabled, false);
    s->setAttribute(QWebEngineSettings::LocalContentCanAccessRemoteUrls, false);
    s->setAttribute(QWebEngineSettings::LocalContentCanAccessFileUrls, false);
    s->setAttribute(QWebEngineSettings::AllowRunningInsecureContent, false);
    s->setAttribute(QWebEngineSettings::AllowGeolocationOnInsecureOrigins, false);
    s->setAttribute(QWebEngineSettings::AllowWindowActivationFromJavaScript, false);
    s->setAttribute(QWebEngineSettings::PluginsEnabled, false);
    s->setAttribute(QWebEngineSettings::PdfViewerEnabled, false);
    s->setAttribute(QWebEngineSettings::AutoLoadIconsForPage, false);
    s->setAttribute(QWebEngineSettings::TouchIconsEnabled, false);
    s->setAttribute(QWebEngineSettings::FullScreenSupportEnabled, false);
    s->setAttribute(QWebEngineSettings::ScreenCaptureEnabled, false);
    s->setAttribute(QWebEngineSettings::WebRTCPublicInterfacesOnly, true);
    s->setAttribute(QWebEngineSettings::DnsPrefetchEnabled, false);
    s->setAttribute(QWebEngineSettings::HyperlinkAuditingEnabled, false);
    s->setAttribute(QWebEngineSettings::NavigateOnDropEnabled, false);
    s->setAttribute(QWebEngineSettings::PlaybackRequiresUserGesture, true);
    s->setAttribute(QWebEngineSettings::JavascriptEnabled, true);
    s->setAttribute(QWebEngineSettings::LocalStorageEnabled, true);
}

void GuardedPage::resetOperationFlags()
{
    m_refusedMainFrame = false;
    m_dismissedBeforeUnload = false;
    m_leavesUnsavedInput = false;
}

bool GuardedPage::acceptNavigationRequest(const QUrl &url, NavigationType, bool isMainFrame)
{
    if (isMainFrame) {
        if (m_policy.allowsNavigation(url, m_overrides) && (!m_fence || m_fence(url)))
            return true;
        m_refusedMainFrame = true;
        m_lastRefused = url;
        Q_EMIT mainFrameNavigationRefused();
        return false;
    }
    // Subframes may load any public HTTPS origin; they grant nothing.
    return PublicUrl::validate(url, m_overrides).ok();
}

QWebEnginePage *GuardedPage::createWindow(WebWindowType)
{
    ++m_refusedPopups;
    return nullptr;
}

void GuardedPage::javaScriptAlert(const QUrl &, const QString &) {}

bool GuardedPage::javaScriptConfirm(const QUrl &, const QString &message)
{
    // beforeunload arrives here as a confirm with Qt's fixed text (never the page's);
    // dismissing it keeps the current page, accepting it leaves the page's input behind.
    const bool beforeUnload =
        message == QCoreApplication::translate("QWebEnginePage",
                                               "Are you sure you want to leave this page? Changes "
                                               "that you made may not be saved.");
    if (beforeUnload && m_leavesUnsavedInput)
        return true;
    m_dismissedBeforeUnload = true;
    if (beforeUnload)
        Q_EMIT beforeUnloadDismissed();
    return false;
}

bool GuardedPage::javaScriptPrompt(const QUrl &, const QString &, const QString &, QString *)
{
    return false;
}

void GuardedPage::javaScriptConsoleMessage(JavaScriptConsoleMessageLevel, const QString &, int,
                                           const QString &)
{
    // Dropped: page console text is untrusted and never logged.
}

QStringList GuardedPage::chooseFiles(FileSelectionMode, const QStringList &, const QStringList &)
{
    return {};
}

namespace {
// True when `leaf` was signed by `ca` (test-only trust of the generated fixture CA).
bool signedBy(const QSslCertificate &leaf, const QSslCertificate &ca)
{
    const QByteArray leafDer = leaf.toDer();
    const QByteArray caDer = ca.toDer();
    const auto *leafBytes = reinterpret_cast<const unsigned char *>(leafDer.constData());
    const auto *caBytes = reinterpret_cast<const unsigned char *>(caDer.constData());
    X509 *leafX509 = d2i_X509(nullptr, &leafBytes, leafDer.size());
    X509 *caX509 = d2i_X509(nullptr, &caBytes, caDer.size());
    bool ok = false;
    if (leafX509 && caX509) {
        EVP_PKEY *caKey = X509_get0_pubkey(caX509);
        ok = caKey && X509_check_issued(caX509, leafX509) == X509_V_OK &&
             X509_verify(leafX509, caKey) == 1;
    }
    X509_free(leafX509);
    X509_free(caX509);
    return ok;
}
} // namespace

void GuardedPage::handleCertificateError(const QWebEngineCertificateError &error)
{
    QWebEngineCertificateError copy = error;
    const QList<QSslCertificate> chain = error.certificateChain();
    if (m_testCa && !chain.isEmpty() &&
        error.type() == QWebEngineCertificateError::CertificateAuthorityInvalid &&
        (chain.first() == *m_testCa ? false : signedBy(chain.first(), *m_testCa))) {
        copy.acceptCertificate();
        return;
    }
    copy.rejectCertificate();
}

} // namespace veetbot
