#include "TaskSite.h"

#include "TestPaths.h"

#include <QDir>
#include <QFile>

namespace veetbot::tasks {

bool serveTaskSite(fixtures::FixtureServer &server, const Task &task)
{
    const QDir dir(testing::sourcePath(QStringLiteral("tests/tasks/pages/") + task.id));
    const QStringList pages = dir.entryList({QStringLiteral("*.html")}, QDir::Files);
    if (pages.isEmpty())
        return false;
    for (const QString &page : pages) {
        QFile file(dir.filePath(page));
        if (!file.open(QIODevice::ReadOnly))
            return false;
        fixtures::FixtureServer::Response response;
        response.body = file.readAll();
        server.setRoute(task.pathPrefix() + page.chopped(5), response);
    }
    for (const ExpectedEffect &effect : task.effects) {
        if (pages.contains(effect.path + QStringLiteral(".html")))
            continue;
        fixtures::FixtureServer::Response response;
        response.body = R"({"ok":true})";
        response.contentType = "application/json";
        server.setRoute(task.pathPrefix() + effect.path, response);
    }
    for (const TaskEndpoint &endpoint : task.endpoints) {
        fixtures::FixtureServer::Response response;
        response.body = endpoint.body;
        response.contentType = endpoint.contentType;
        response.delayMs = endpoint.delayMs;
        server.setRoute(task.pathPrefix() + endpoint.path, response);
    }
    return true;
}

} // namespace veetbot::tasks
