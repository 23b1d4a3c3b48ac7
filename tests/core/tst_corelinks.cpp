// The core library stays GUI-free: this test links only veetbot_core and fails if QtGui,
// QtWidgets or QtWebEngine was loaded into it, or if a core source includes one of them. Its
// folders are layers: each includes only the folders beneath it (core/CMakeLists.txt), and no
// port or domain header brings OpenSSL with it. Above the core, the windows (ui/) and the
// programs other than `veetbot` include nothing of the command library (cli/): Website
// Access's use cases are core/client's; the profile service takes only the output conventions.

#include "TestPaths.h"
#include "domain/observation/BrowserObservation.h"
#include "domain/web/Origin.h"
#include "isolation/IsolatedBrowserProvider.h"
#include "net/EgressProxy.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QHash>
#include <QRegularExpression>
#include <QTest>

#include <link.h>

class TestCoreLinks : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void loadsNoGuiLibrary();
    void coreSourcesIncludeNoGuiHeader();
    void foldersIncludeOnlyTheLayersBeneath();
    void serviceSidesStayApart();
    void portsAndDomainHeadersIncludeNoOpenSsl();
    void windowsAndTheServiceIncludeNoCommand();
};

namespace {
int collect(struct dl_phdr_info *info, size_t, void *data)
{
    static_cast<QStringList *>(data)->append(QString::fromLocal8Bit(info->dlpi_name));
    return 0;
}
} // namespace

void TestCoreLinks::loadsNoGuiLibrary()
{
    // Use the core so the linker keeps it.
    veetbot::TestOverrides overrides;
    QVERIFY(!veetbot::Origin::parse(QStringLiteral("https://localhost"), overrides).ok());
    QStringList libraries;
    dl_iterate_phdr(collect, &libraries);
    bool sawQtCore = false;
    for (const QString &library : libraries) {
        sawQtCore |= library.contains(QLatin1String("libQt6Core"));
        for (const char *forbidden :
             {"libQt6Gui", "libQt6Widgets", "libQt6WebEngine", "libQt6OpenGL", "libQt6Quick"})
            QVERIFY2(!library.contains(QLatin1String(forbidden)), qPrintable(library));
    }
    QVERIFY(sawQtCore); // the check above looked at a real library list
}

void TestCoreLinks::coreSourcesIncludeNoGuiHeader()
{
    const QRegularExpression forbidden(
        QStringLiteral(R"(#\s*include\s*[<"](QtGui|QtWidgets|QtWebEngine\w*|QWebEngine\w*|)"
                       R"(QWidget|QApplication|QGuiApplication|QImage|QPixmap|QWindow)\b)"));
    int files = 0;
    QDirIterator it(veetbot::testing::sourcePath(QStringLiteral("core")), {"*.h", "*.cpp"},
                    QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY2(!forbidden.match(text).hasMatch(), qPrintable(file.fileName()));
        ++files;
    }
    QVERIFY(files > 10);
}

namespace {
// The first capture of `pattern` in each include line of the C++ files under `folder` (its
// subfolders too), with the file that has it.
QList<QPair<QString, QString>> includesUnder(const QString &folder,
                                             const QRegularExpression &pattern)
{
    QList<QPair<QString, QString>> found;
    QDirIterator it(folder, {"*.h", "*.cpp"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (!file.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(file.fileName()));
        auto matches = pattern.globalMatch(QString::fromUtf8(file.readAll()));
        while (matches.hasNext())
            found.append({file.fileName(), matches.next().captured(1)});
    }
    return found;
}
} // namespace

namespace {
// What each core folder may include besides itself: the layers of core/CMakeLists.txt.
const QHash<QString, QStringList> &allowedIncludes()
{
    static const QHash<QString, QStringList> allowed{
        {QStringLiteral("json"), {}},
        {QStringLiteral("domain"), {QStringLiteral("json")}},
        {QStringLiteral("ports"), {QStringLiteral("domain")}},
        {QStringLiteral("collector"), {QStringLiteral("domain")}},
        {QStringLiteral("storage"), {QStringLiteral("domain")}},
        {QStringLiteral("net"), {QStringLiteral("domain")}},
        {QStringLiteral("ledger"), {QStringLiteral("domain"), QStringLiteral("storage")}},
        {QStringLiteral("vault"),
         {QStringLiteral("domain"), QStringLiteral("json"), QStringLiteral("ports"),
          QStringLiteral("storage")}},
        {QStringLiteral("profiles"),
         {QStringLiteral("domain"), QStringLiteral("ports"), QStringLiteral("storage")}},
        {QStringLiteral("isolation"),
         {QStringLiteral("domain"), QStringLiteral("json"), QStringLiteral("net"),
          QStringLiteral("ports")}},
        {QStringLiteral("policy"), {QStringLiteral("domain"), QStringLiteral("ports")}},
        {QStringLiteral("tools"),
         {QStringLiteral("domain"), QStringLiteral("json"), QStringLiteral("ledger"),
          QStringLiteral("policy"), QStringLiteral("ports")}},
        {QStringLiteral("approval"), {QStringLiteral("domain"), QStringLiteral("ports")}},
        {QStringLiteral("mcp"),
         {QStringLiteral("approval"), QStringLiteral("domain"), QStringLiteral("json"),
          QStringLiteral("ports"), QStringLiteral("tools")}},
        {QStringLiteral("runs"),
         {QStringLiteral("domain"), QStringLiteral("json"), QStringLiteral("ledger"),
          QStringLiteral("ports"), QStringLiteral("storage"), QStringLiteral("tools")}},
        {QStringLiteral("client"),
         {QStringLiteral("approval"), QStringLiteral("domain"), QStringLiteral("policy"),
          QStringLiteral("ports"), QStringLiteral("profiles"), QStringLiteral("service")}},
        {QStringLiteral("servicehost"),
         {QStringLiteral("domain"), QStringLiteral("isolation"), QStringLiteral("json"),
          QStringLiteral("ports"), QStringLiteral("profiles"), QStringLiteral("service"),
          QStringLiteral("storage"), QStringLiteral("vault")}},
        {QStringLiteral("service"),
         {QStringLiteral("domain"), QStringLiteral("isolation"), QStringLiteral("json"),
          QStringLiteral("ports"), QStringLiteral("storage")}},
    };
    return allowed;
}
} // namespace

namespace {
// Which side of the profile service a part of the core may include: the wire formats
// (service/api) are shared; the client's side and the server's never meet, so no program
// that talks to the service carries the server, and the service never carries the client.
const QHash<QString, QStringList> &allowedServiceSides()
{
    static const QHash<QString, QStringList> allowed{
        {QStringLiteral("service/api"), {}},
        {QStringLiteral("service/client"), {QStringLiteral("api")}},
        {QStringLiteral("service/server"), {QStringLiteral("api")}},
        {QStringLiteral("client"), {QStringLiteral("api"), QStringLiteral("client")}},
        {QStringLiteral("servicehost"), {QStringLiteral("api"), QStringLiteral("server")}},
    };
    return allowed;
}
} // namespace

void TestCoreLinks::serviceSidesStayApart()
{
    const QRegularExpression include(QStringLiteral(R"(#\s*include\s*"service/(\w+)/)"));
    const QDir core(veetbot::testing::sourcePath(QStringLiteral("core")));
    // Every file of the service sits on one side.
    const QStringList sides =
        QDir(core.filePath(QStringLiteral("service"))).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QCOMPARE(sides, (QStringList{QStringLiteral("api"), QStringLiteral("client"),
                                 QStringLiteral("server")}));
    QVERIFY(QDir(core.filePath(QStringLiteral("service")))
                .entryList({"*.h", "*.cpp"}, QDir::Files)
                .isEmpty());
    int checked = 0;
    for (auto it = allowedServiceSides().cbegin(); it != allowedServiceSides().cend(); ++it) {
        const QString part = it.key();
        for (const auto &[file, side] : includesUnder(core.filePath(part), include)) {
            QVERIFY2(part == QLatin1String("service/") + side || it.value().contains(side),
                     qPrintable(QStringLiteral("%1 includes service/%2/").arg(file, side)));
            ++checked;
        }
    }
    QVERIFY(checked > 20); // the pattern found the includes it checks
}

void TestCoreLinks::foldersIncludeOnlyTheLayersBeneath()
{
    const QRegularExpression include(QStringLiteral(R"(#\s*include\s*"(\w+)/)"));
    const QDir core(veetbot::testing::sourcePath(QStringLiteral("core")));
    int checked = 0;
    for (const QString &folder : core.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QVERIFY2(allowedIncludes().contains(folder),
                 qPrintable(QStringLiteral("core/%1 has no place among the layers").arg(folder)));
        const QStringList allowed = allowedIncludes().value(folder);
        for (const auto &[file, target] : includesUnder(core.filePath(folder), include)) {
            QVERIFY2(target == folder || allowed.contains(target),
                     qPrintable(QStringLiteral("%1 includes %2/").arg(file, target)));
            ++checked;
        }
    }
    QVERIFY(checked > 50); // the pattern found the includes it checks
}

void TestCoreLinks::portsAndDomainHeadersIncludeNoOpenSsl()
{
    const QRegularExpression openssl(QStringLiteral(R"(#\s*include\s*<openssl/)"));
    int headers = 0;
    for (const char *folder : {"ports", "domain", "json"}) {
        QDirIterator it(
            veetbot::testing::sourcePath(QStringLiteral("core/") + QLatin1String(folder)), {"*.h"},
            QDir::Files);
        while (it.hasNext()) {
            QFile file(it.next());
            QVERIFY(file.open(QIODevice::ReadOnly));
            QVERIFY2(!openssl.match(QString::fromUtf8(file.readAll())).hasMatch(),
                     qPrintable(file.fileName()));
            ++headers;
        }
    }
    QVERIFY(headers > 10);
}

// Includes are by file name (each library's folder is on its users' include path), so a
// command header is recognised by its name wherever it is included from.
void TestCoreLinks::windowsAndTheServiceIncludeNoCommand()
{
    const QDir cli(veetbot::testing::sourcePath(QStringLiteral("cli")));
    const QStringList commandHeaders = cli.entryList({QStringLiteral("*.h")}, QDir::Files);
    QVERIFY(commandHeaders.contains(QStringLiteral("ProfilesCommand.h")));
    QVERIFY(commandHeaders.contains(QStringLiteral("CommandOutput.h")));
    const QRegularExpression include(QStringLiteral(R"re(#\s*include\s*"(?:[\w/]*/)?(\w+\.h)")re"));
    // What each folder may take from cli/.
    const QList<std::pair<QString, QStringList>> folders{
        {QStringLiteral("ui"), {}},
        {QStringLiteral("app/profile-service"), {QStringLiteral("CommandOutput.h")}},
        {QStringLiteral("app/workbench"), {}},
        {QStringLiteral("app/browser-host"), {}},
        {QStringLiteral("core"), {}},
        {QStringLiteral("webengine"), {}},
        {QStringLiteral("chromium"), {}},
    };
    int checked = 0;
    for (const auto &[folder, allowed] : folders) {
        QDirIterator it(veetbot::testing::sourcePath(folder), {"*.h", "*.cpp"}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            QFile file(it.next());
            QVERIFY(file.open(QIODevice::ReadOnly));
            auto matches = include.globalMatch(QString::fromUtf8(file.readAll()));
            while (matches.hasNext()) {
                const QString header = matches.next().captured(1);
                QVERIFY2(!commandHeaders.contains(header) || allowed.contains(header),
                         qPrintable(QStringLiteral("%1 includes the command library's %2")
                                        .arg(file.fileName(), header)));
                ++checked;
            }
        }
    }
    QVERIFY(checked > 100); // the pattern found the includes it checks
}

QTEST_GUILESS_MAIN(TestCoreLinks)
#include "tst_corelinks.moc"
