#pragma once

#include "domain/Result.h"
#include "domain/web/BrowserEngine.h"

#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QUuid>

#include <optional>
#include <variant>

class QCommandLineOption;
class QCommandLineParser;

namespace veetbot {

// Shared output conventions of the CLI: one JSON document on stdout; a stable failure is
// {"error":{"code","message"}} with exit 3; a usage error is explained on stderr with exit 2.
namespace CommandOutput {
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitFailure = 3;

void printJson(const QJsonValue &value);
int printError(const Error &error);
int usage(const QString &command, const QString &problem, const QCommandLineParser &parser);
// Parses the arguments; when parsing failed (usage error) or --help was asked for, returns
// the exit code to end with, else nothing.
std::optional<int> parseOrExit(QCommandLineParser &parser, const QStringList &arguments,
                               const QString &command);

// --database URL: PostgreSQL metadata (postgresql://user@host[:port]/database, the password
// from the libpq password file) instead of SQLite under the data directory.
QCommandLineOption databaseOption();
// --budget BYTES: a projection budget from 1024 to 1048576 bytes, else nothing.
std::optional<int> parseBudget(const QString &text);
inline constexpr QLatin1String kBudgetProblem{"--budget must be an integer from 1024 to 1048576"};
// --ordinary-interaction and --task-grants (on|off, default on) as given, or the usage problem
// of the first that is neither.
struct AuthoritySwitches
{
    bool ordinaryInteraction = true;
    bool taskGrants = true;
};
std::variant<AuthoritySwitches, QString>
readAuthoritySwitches(const QCommandLineParser &parser, const QCommandLineOption &ordinary,
                      const QCommandLineOption &taskGrants);
// An id as the commands print it: a UUID in its 36-character form, else nothing.
std::optional<QUuid> parseId(const QString &text);

// --engine NAME: the engine of an isolated agent browser (docs/decisions/0014).
QCommandLineOption engineOption();
// The engine --engine names, else VEETBOT_ENGINE's, else the default. With an unknown name,
// the usage error's exit code.
struct EngineChoice
{
    BrowserEngine engine = defaultBrowserEngine();
    std::optional<int> exitCode;
};
EngineChoice chooseEngine(const QCommandLineParser &parser, const QCommandLineOption &option,
                          const QString &command);
// The usage problem of --engine beside a profile's browser: that browser is the profile
// service's, and so is its engine (docs/decisions/0014, "Which engine a command runs").
QString engineWithProfileProblem();
} // namespace CommandOutput

} // namespace veetbot
