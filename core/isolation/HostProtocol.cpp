#include "HostProtocol.h"

#include "domain/TestOverrides.h"

#include <QJsonDocument>

namespace veetbot::HostProtocol {

namespace {
QByteArray line(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

std::optional<QJsonObject> parseObject(const QByteArray &bytes)
{
    if (bytes.size() > kMaxLineBytes)
        return std::nullopt;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    return document.object();
}

std::optional<quint64> readId(const QJsonObject &object)
{
    const QJsonValue id = object.value(QStringLiteral("id"));
    if (!id.isDouble())
        return std::nullopt;
    const double value = id.toDouble();
    if (value < 1 || value > 9007199254740991.0 || value != double(quint64(value)))
        return std::nullopt;
    return quint64(value);
}
} // namespace

QByteArray encodeRequest(const Request &request)
{
    QJsonObject object{{QStringLiteral("id"), double(request.id)},
                       {QStringLiteral("op"), request.op}};
    if (request.op == QLatin1String("navigate"))
        object.insert(QStringLiteral("url"), request.url);
    else if (request.op == QLatin1String("observe"))
        object.insert(QStringLiteral("mode"), request.observe.toJson());
    return line(object);
}

std::optional<Request> decodeRequest(const QByteArray &bytes)
{
    const auto object = parseObject(bytes);
    if (!object)
        return std::nullopt;
    const auto id = readId(*object);
    const QString op = object->value(QStringLiteral("op")).toString();
    if (!id)
        return std::nullopt;
    if (op == QLatin1String("navigate")) {
        const QJsonValue url = object->value(QStringLiteral("url"));
        if (object->size() != 3 || !url.isString())
            return std::nullopt;
        return Request{*id, op, url.toString()};
    }
    if (op == QLatin1String("observe")) {
        const QJsonValue mode = object->value(QStringLiteral("mode"));
        if (object->size() != 3 || !mode.isObject())
            return std::nullopt;
        const Result<ObserveRequest> observe = ObserveRequest::fromJson(mode.toObject());
        if (!observe)
            return std::nullopt;
        return Request{*id, op, QString(), observe.value()};
    }
    return std::nullopt;
}

QByteArray encodeReady()
{
    return line(QJsonObject{{QStringLiteral("event"), QStringLiteral("ready")}});
}

QByteArray encodeResult(quint64 id, const Result<BrowserObservation> &result)
{
    QJsonObject object{{QStringLiteral("id"), double(id)}};
    if (result.ok())
        object.insert(QStringLiteral("observation"), result.value().toJson());
    else
        object.insert(QStringLiteral("error"),
                      QJsonObject{{QStringLiteral("code"), result.error().code},
                                  {QStringLiteral("message"), result.error().message}});
    return line(object);
}

std::optional<Response> decodeResponse(const QByteArray &bytes, const TestOverrides &overrides)
{
    const auto object = parseObject(bytes);
    if (!object)
        return std::nullopt;
    if (object->size() == 1 && object->value(QStringLiteral("event")) == QLatin1String("ready")) {
        Response response;
        response.ready = true;
        return response;
    }
    const auto id = readId(*object);
    if (!id || object->size() != 2)
        return std::nullopt;
    Response response;
    response.id = *id;
    if (object->contains(QStringLiteral("observation"))) {
        const QJsonValue observation = object->value(QStringLiteral("observation"));
        if (!observation.isObject())
            return std::nullopt;
        response.result = BrowserObservation::fromJson(observation.toObject(), overrides);
        return response;
    }
    const QJsonValue error = object->value(QStringLiteral("error"));
    if (!error.isObject())
        return std::nullopt;
    const auto reason =
        reasonCodeFromString(error.toObject().value(QStringLiteral("code")).toString());
    response.result = reason ? Result<BrowserObservation>(*reason)
                             : Result<BrowserObservation>(ReasonCode::ProviderUnavailable);
    return response;
}

} // namespace veetbot::HostProtocol
