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

} // namespace veetbot::StorageScripts
