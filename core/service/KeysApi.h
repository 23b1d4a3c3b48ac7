#pragma once

#include "ServiceClient.h"

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
// Client side: the version the record is sealed under now, nullopt when it is gone.
Result<std::optional<QString>> rotate(const ServiceClient &client, const QString &reference);
Result<QStringList> keyVersionsInUse(const ServiceClient &client);
} // namespace KeysApi

} // namespace veetbot
