#include "DirectoryKeyring.h"

#include "KeyDirectory.h"
#include "KeyringError.h"

namespace veetbot {

Result<DirectoryKeyring> DirectoryKeyring::open(const QString &path)
{
    Result<KeyMaterial> material = KeyDirectory::load(path);
    if (!material)
        return material.error();
    return DirectoryKeyring(std::move(material).value());
}

DirectoryKeyring::DirectoryKeyring(KeyMaterial material) : m_material(std::move(material)) {}

Result<QString> DirectoryKeyring::currentVersion() const
{
    if (m_material.keys.find(m_material.current) == m_material.keys.end())
        return keyringError(KeyringError::MissingCurrent);
    return m_material.current;
}

Result<SecretBytes> DirectoryKeyring::key(const QString &version) const
{
    const auto found = m_material.keys.find(version);
    if (found == m_material.keys.end())
        return keyringError(KeyringError::UnknownVersion);
    // A private copy: SecretBytes detaches, so wiping it never touches the held key.
    return SecretBytes(found->second.bytes());
}

QStringList DirectoryKeyring::versions() const
{
    QStringList names;
    for (const auto &[version, key] : m_material.keys)
        names.append(version);
    return names;
}

} // namespace veetbot
