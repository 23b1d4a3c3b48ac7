#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace veetbot {

// Key maintenance through the service (the keys themselves never leave it):
//   POST /v1/keys:rotate {"provider_reference"}  200 {"found":true,"key_version"} or
//                                                    {"found":false} (material already deleted)
//   GET  /v1/keys                                200 {"key_versions_in_use":[...]}
namespace KeysApi {
// The rotation request's reference, or nullopt for any other body.
std::optional<QString> parseRotation(const QByteArray &body);
QByteArray rotationBody(const QString &reference);
// A rotation's answer: the version the record is sealed under now (nullopt inside when it is
// gone), or nullopt for a malformed answer.
std::optional<std::optional<QString>> parseRotated(const QByteArray &body);
// The key versions in use, or nullopt for a malformed answer.
std::optional<QStringList> parseVersionsInUse(const QByteArray &body);
} // namespace KeysApi

} // namespace veetbot
