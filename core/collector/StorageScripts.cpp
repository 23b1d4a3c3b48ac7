#include "StorageScripts.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace veetbot::StorageScripts {

QString write(const OriginStorage &storage)
{
    QJsonArray items;
    for (const auto &[name, value] : storage.localStorage)
        items.append(QJsonArray{name, value});
    // The items as a JSON text literal: no character of a name or value reaches the script's
    // syntax.
    const QString literal = QString::fromUtf8(QJsonDocument(items).toJson(QJsonDocument::Compact));
    return QStringLiteral("(function(items){localStorage.clear();"
                          "for (const [k, v] of items) localStorage.setItem(k, v);"
                          "return 'ok';})(") +
           literal + QStringLiteral(")");
}

QString read()
{
    return QStringLiteral(
        "JSON.stringify(Object.keys(localStorage).sort().map(k => [k, localStorage.getItem(k)]))");
}

Result<OriginStorage> parse(const Origin &origin, const QString &answer)
{
    const QJsonDocument parsed = QJsonDocument::fromJson(answer.toUtf8());
    if (!parsed.isArray() || parsed.array().size() > SessionState::kMaxItems)
        return ReasonCode::OutputInvalid; // over a bound: nothing is sealed
    OriginStorage storage{origin.toString(), {}};
    for (const QJsonValue &entry : parsed.array()) {
        const QJsonArray pair = entry.toArray();
        if (pair.size() != 2 || !pair.at(0).isString() || !pair.at(1).isString())
            return ReasonCode::OutputInvalid;
        storage.localStorage.append({pair.at(0).toString(), pair.at(1).toString()});
    }
    return storage;
}

void writeAll(RunAtOrigin run, QList<OriginStorage> remaining,
              std::function<void(Result<Unit>)> done)
{
    if (remaining.isEmpty()) {
        done(Unit{});
        return;
    }
    const OriginStorage next = remaining.takeFirst();
    const QString script = write(next);
    run(next.origin, script,
        [run, remaining, done = std::move(done)](std::optional<QString> answer) mutable {
            if (answer != QLatin1String("ok")) {
                done(ReasonCode::ProviderUnavailable);
                return;
            }
            writeAll(std::move(run), std::move(remaining), std::move(done));
        });
}

void readAll(RunAtOrigin run, QList<Origin> remaining, SessionState state,
             std::function<void(Result<SessionState>)> done)
{
    if (remaining.isEmpty()) {
        done(state);
        return;
    }
    const Origin origin = remaining.takeFirst();
    run(origin.toString(), read(),
        [run, origin, remaining, state,
         done = std::move(done)](std::optional<QString> answer) mutable {
            if (!answer) {
                done(ReasonCode::ProviderUnavailable);
                return;
            }
            Result<OriginStorage> storage = parse(origin, *answer);
            if (!storage) {
                done(storage.error());
                return;
            }
            if (!storage->localStorage.isEmpty())
                state.origins.append(storage.value());
            readAll(std::move(run), std::move(remaining), std::move(state), std::move(done));
        });
}

} // namespace veetbot::StorageScripts
