#include "Autostart.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

namespace veetbot {

namespace {

Error unavailable()
{
    return Error{QStringLiteral("autostart.unavailable"),
                 QStringLiteral("The autostart entry could not be written; the workbench will "
                                "not start with your session.")};
}

// A program path as a desktop entry's Exec takes it (Desktop Entry Specification, "The Exec
// key"): quoted, its reserved characters escaped, a percent sign doubled (it starts a field
// code), and then every backslash escaped once more by the rule for string values.
QString execQuoted(const QString &program)
{
    QString quoted = program;
    for (const QChar c : {u'\\', u'"', u'`', u'$'})
        quoted.replace(c, QStringLiteral("\\") + c);
    quoted.replace(u'%', QStringLiteral("%%"));
    quoted = u'"' + quoted + u'"';
    return quoted.replace(u'\\', QStringLiteral("\\\\"));
}

} // namespace

QString Autostart::entryPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
           QStringLiteral("/autostart/org.veetbot.Workbench.desktop");
}

bool Autostart::isEnabled()
{
    return QFileInfo::exists(entryPath());
}

QByteArray Autostart::entry(const QString &program)
{
    return QByteArrayLiteral("[Desktop Entry]\n"
                             "Type=Application\n"
                             "Name=Veetbot Workbench\n"
                             "Comment=Approve what your agents do on the websites you use\n"
                             "Icon=org.veetbot.Workbench\n") +
           "Exec=" + execQuoted(program).toUtf8() + " --background\n" +
           QByteArrayLiteral("Terminal=false\n"
                             "X-GNOME-Autostart-enabled=true\n");
}

Result<Unit> Autostart::setEnabled(bool enabled, const QString &program)
{
    const QString path = entryPath();
    if (!enabled) {
        if (QFileInfo::exists(path) && !QFile::remove(path))
            return unavailable();
        return Unit{};
    }
    if (!QDir().mkpath(QFileInfo(path).path()))
        return unavailable();
    QSaveFile file(path);
    const QByteArray bytes = entry(program);
    if (!file.open(QIODevice::WriteOnly) ||
        !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) ||
        file.write(bytes) != bytes.size() || !file.commit())
        return unavailable();
    return Unit{};
}

} // namespace veetbot
