#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace veetbot::Sha256 {

// SHA-256 through OpenSSL's EVP interface (never a hand-written digest). A failure of the
// library is a broken process, not an input condition, so it aborts.
QByteArray digest(QByteArrayView bytes);
// The 64 lower-case hex digits of digest(bytes).
QString hex(QByteArrayView bytes);

} // namespace veetbot::Sha256
