#include "KeysApi.h"

#include "domain/profile/BrowserProfile.h"
#include "json/StrictJson.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace veetbot::KeysApi {

namespace {

std::optional<StrictJson::Value> object(const QByteArray &body, qsizetype maxBytes)
{
    StrictJson::Limits limits;
    limits.maxBytes = maxBytes;
    limits.maxDepth = 3;
    std::optional<StrictJson::Value> document = StrictJson::parseDocument(body, limits);
    if (!document || !document->isObject())
        return std::nullopt;
    return document;
}

} // namespace

std::optional<QString> parseRotation(const QByteArray &body)
{
    const std::optional<StrictJson::Value> document = object(body, 4096);
    if (!document || document->members.size() != 1)
        return std::nullopt;
    const StrictJson::Value *reference = document->member("provider_reference");
    if (!reference || !reference->isString())
        return std::nullopt;
    const QString text = QString::fromUtf8(reference->string);
    if (text.isEmpty() || text.size() > BrowserProfile::kMaxProviderReferenceLength)
        return std::nullopt;
    return text;
}

QByteArray rotationBody(const QString &reference)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("provider_reference"), reference}})
        .toJson(QJsonDocument::Compact);
}

std::optional<std::optional<QString>> parseRotated(const QByteArray &body)
{
    const std::optional<StrictJson::Value> document = object(body, 4096);
    const StrictJson::Value *found = document ? document->member("found") : nullptr;
    if (!found || found->type != StrictJson::Value::Type::Bool)
        return std::nullopt;
    if (!found->boolean)
        return std::optional<QString>();
    const StrictJson::Value *version = document->member("key_version");
    if (!version || !version->isString() || version->string.isEmpty() ||
        version->string.size() > BrowserProfile::kMaxKeyVersionLength)
        return std::nullopt;
    return std::optional<QString>(QString::fromUtf8(version->string));
}

std::optional<QStringList> parseVersionsInUse(const QByteArray &body)
{
    const std::optional<StrictJson::Value> document = object(body, 64 * 1024);
    const StrictJson::Value *versions =
        document ? document->member("key_versions_in_use") : nullptr;
    if (!versions || versions->type != StrictJson::Value::Type::Array)
        return std::nullopt;
    QStringList list;
    for (const StrictJson::Value &item : versions->items) {
        if (!item.isString())
            return std::nullopt;
        list.append(QString::fromUtf8(item.string));
    }
    return list;
}

} // namespace veetbot::KeysApi
