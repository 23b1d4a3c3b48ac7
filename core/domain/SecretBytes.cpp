#include "SecretBytes.h"

#include <openssl/crypto.h>

namespace veetbot {

void SecretBytes::wipe()
{
    if (!m_bytes.isEmpty() && m_bytes.isDetached())
        OPENSSL_cleanse(m_bytes.data(), size_t(m_bytes.size()));
    m_bytes.clear();
}

} // namespace veetbot
