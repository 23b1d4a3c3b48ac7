#pragma once

#include <QByteArray>

namespace veetbot {

// Key or plaintext bytes that are wiped (OPENSSL_cleanse, out of line so no OpenSSL header
// reaches the ports that carry these bytes) when released. Move-only so no unwiped copy is
// made by accident; never logged, never converted to text.
class SecretBytes
{
public:
    SecretBytes() = default;
    explicit SecretBytes(QByteArray bytes) : m_bytes(std::move(bytes)) { m_bytes.detach(); }
    ~SecretBytes() { wipe(); }
    SecretBytes(const SecretBytes &) = delete;
    SecretBytes &operator=(const SecretBytes &) = delete;
    SecretBytes(SecretBytes &&other) noexcept : m_bytes(std::move(other.m_bytes)) {}
    SecretBytes &operator=(SecretBytes &&other) noexcept
    {
        if (this != &other) {
            wipe();
            m_bytes = std::move(other.m_bytes);
        }
        return *this;
    }

    const QByteArray &bytes() const { return m_bytes; }
    const unsigned char *data() const
    {
        return reinterpret_cast<const unsigned char *>(m_bytes.constData());
    }
    qsizetype size() const { return m_bytes.size(); }
    bool isEmpty() const { return m_bytes.isEmpty(); }
    // Only a buffer this object alone holds is cleansed. A copy taken through bytes() shares
    // the buffer and stays valid for its holder, who then owns the duty to wipe it; code that
    // holds keys avoids such copies.
    void wipe();

private:
    QByteArray m_bytes;
};

} // namespace veetbot
