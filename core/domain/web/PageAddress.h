#pragma once

#include <QString>
#include <QUrl>

namespace veetbot {

// How a page's address is shown where the owner or the model reads it. Applications that keep
// their operations in the query string (index.php?title=Sandbox&action=edit) look alike by
// path; these read the query's page name and operation too, and keep tokens out of sight.
namespace PageAddress {

// The page name and operation its query carries, "Sandbox · edit", or empty when it carries
// neither. The page name is the value of a title, page or article parameter; the operations
// are the values of operation parameters (WriteGuard::isOperationParameterName). Each part is
// at most 32 characters of [A-Za-z0-9._~-] (a part with anything else is left out), and the
// whole at most 64. Tokens are never parts.
QString queryLabel(const QUrl &url);

// The URL a model may see: every query value of a token-shaped parameter, and every
// token-shaped value, replaced by "[redacted]" (WriteGuard::isTokenParameterName,
// isTokenShapedValue). A query too long to read whole is dropped. Other parts are unchanged.
QUrl redactedForModel(const QUrl &url);

} // namespace PageAddress

} // namespace veetbot
