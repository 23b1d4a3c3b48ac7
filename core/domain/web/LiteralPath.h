#pragma once

#include <QString>
#include <QUrl>

namespace veetbot {

// A literal path (and query) on a known origin, as reviewed configuration names pages (a
// recipe's navigate step, a site definition's protected path): only characters that every URL
// parser reads the same way and that need no encoding, so what the review saw is where the
// browser goes. No template, fragment, percent sign, white space or back slash, and no way up
// or out of the origin ("//", a "." or ".." segment).
bool isLiteralPath(const QString &path, qsizetype maxUnits);
// The origin's URL ("https://host[:port]") with the path and its query as written.
QUrl literalUrl(const QUrl &origin, const QString &path);

} // namespace veetbot
