// The core library stays GUI-free: this test links only veetbot_core and fails if QtGui,
// QtWidgets or QtWebEngine was loaded into it, or if a core source includes one of them.

#include "domain/BrowserObservation.h"
#include "domain/Origin.h"
#include "isolation/IsolatedBrowserProvider.h"
#include "net/EgressProxy.h"

#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <link.h>

class TestCoreLinks : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void loadsNoGuiLibrary();
    void coreSourcesIncludeNoGuiHeader();
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
        for (const char *forbidden : {"libQt6Gui", "libQt6Widgets", "libQt6WebEngine",
                                      "libQt6OpenGL", "libQt6Quick"})
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
    QDirIterator it(QStringLiteral(VEETBOT_SOURCE_DIR "/core"), {"*.h", "*.cpp"}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY2(!forbidden.match(text).hasMatch(), qPrintable(file.fileName()));
        ++files;
    }
    QVERIFY(files > 10);
}

QTEST_GUILESS_MAIN(TestCoreLinks)
#include "tst_corelinks.moc"
