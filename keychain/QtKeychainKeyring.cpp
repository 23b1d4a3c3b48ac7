#include "QtKeychainKeyring.h"

#include "QtKeychainStore.h"

#include "vault/KeyDirectoryLoader.h"
#include "vault/KeyVersion.h"
#include "vault/KeyringError.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <openssl/crypto.h>
#include <openssl/rand.h>

namespace veetbot {

namespace {

constexpr qsizetype kKeyBytes = KeyDirectoryLoader::kKeyBytes;
constexpr qsizetype kProbeBytes = 16;
constexpr qsizetype kMaxIndexBytes = 64 * 1024;

Error fail(KeyringError error)
{
    return keyringError(error);
}

// What a store status means when the operation needed an answer.
Error errorOf(KeychainStatus status)
{
    return fail(status == KeychainStatus::Denied ? KeyringError::Denied
                                                 : KeyringError::Unavailable);
}

Result<SecretBytes> randomBytes(qsizetype size)
{
    SecretBytes bytes(QByteArray(size, Qt::Uninitialized));
    if (RAND_bytes(const_cast<unsigned char *>(bytes.data()), int(size)) != 1)
        return fail(KeyringError::RandomFailed);
    return bytes;
}

bool sameBytes(const SecretBytes &a, const SecretBytes &b)
{
    return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), size_t(a.size())) == 0;
}

} // namespace

template <typename T> void QtKeychainKeyring::finish(const Done<T> &done, Result<T> result)
{
    end();
    QMetaObject::invokeMethod(
        this, [done, result = std::move(result)] { done(result); }, Qt::QueuedConnection);
}

template <typename T>
QtKeychainKeyring::Done<T> QtKeychainKeyring::beginChange(Done<T> done, bool announce)
{
    if (!begin([done](Error error) { done(std::move(error)); }))
        return {};
    Done<T> complete = [this, done, announce](Result<T> result) {
        if (result && announce)
            Q_EMIT keysChanged();
        finish(done, std::move(result));
    };
    if (!m_loaded) {
        complete(fail(KeyringError::NotLoaded));
        return {};
    }
    return complete;
}

QtKeychainKeyring::QtKeychainKeyring(QtKeychainKeyringOptions options, QObject *parent)
    : QtKeychainKeyring(std::make_unique<QtKeychainStore>(options.service), options, parent)
{
}

QtKeychainKeyring::QtKeychainKeyring(std::unique_ptr<KeychainStore> store,
                                     QtKeychainKeyringOptions options, QObject *parent)
    : QObject(parent), m_store(std::move(store)), m_options(std::move(options))
{
    m_configured = m_store != nullptr && !m_options.service.isEmpty() &&
                   KeyVersion::isValid(m_options.keyNamespace) &&
                   m_options.jobTimeout.count() > 0 && m_options.retryDelay.count() >= 0;
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, &QtKeychainKeyring::onTimeout);
}

QtKeychainKeyring::~QtKeychainKeyring() = default;

// --- Keyring ---------------------------------------------------------------------------

Result<QString> QtKeychainKeyring::currentVersion() const
{
    if (!m_loaded)
        return fail(KeyringError::NotLoaded);
    return m_current;
}

Result<SecretBytes> QtKeychainKeyring::key(const QString &version) const
{
    if (!m_loaded)
        return fail(KeyringError::NotLoaded);
    const auto found = m_keys.find(version);
    if (found == m_keys.end())
        return fail(KeyringError::UnknownVersion);
    return SecretBytes(found->second.bytes());
}

QStringList QtKeychainKeyring::versions() const
{
    QStringList names;
    if (!m_loaded)
        return names;
    for (const auto &[version, key] : m_keys)
        names.append(version);
    return names;
}

// --- Operations ------------------------------------------------------------------------

void QtKeychainKeyring::load(Done<Unit> done)
{
    loadOrInitialize(false, false, std::move(done));
}

void QtKeychainKeyring::initializeIfEmpty(bool vaultIsEmpty, Done<Unit> done)
{
    loadOrInitialize(true, vaultIsEmpty, std::move(done));
}

void QtKeychainKeyring::loadOrInitialize(bool initialize, bool vaultIsEmpty, Done<Unit> done)
{
    if (!begin([done](Error error) { done(std::move(error)); }))
        return;
    forgetKeys();
    readIndex([this, initialize, vaultIsEmpty, done](Result<Index> index) {
        const auto complete = [this, done](Result<Unit> result) {
            if (result)
                Q_EMIT keysChanged();
            finish(done, std::move(result));
        };
        if (index) {
            readKeys(index.value(), std::make_shared<std::map<QString, SecretBytes>>(), 0,
                     complete);
            return;
        }
        // Not found is a first run only when the caller's vault is empty and the store
        // demonstrably keeps what it is given; otherwise the keys are lost, not absent.
        if (!initialize || !vaultIsEmpty || index.error() != fail(KeyringError::MissingCurrent)) {
            complete(index.error());
            return;
        }
        probe([this, complete](Result<Unit> probed) {
            if (!probed) {
                complete(probed.error());
                return;
            }
            createFirstKey(complete);
        });
    });
}

void QtKeychainKeyring::addKey(Done<QString> done)
{
    const Done<QString> complete = beginChange(std::move(done), true);
    if (!complete)
        return;
    Result<QString> version = KeyVersion::generate();
    for (int attempt = 0; version && m_keys.count(*version) != 0 && attempt < 4; ++attempt)
        version = KeyVersion::generate();
    if (!version || m_keys.count(*version) != 0) {
        complete(fail(KeyringError::RandomFailed));
        return;
    }
    Result<SecretBytes> generated = randomBytes(kKeyBytes);
    if (!generated) {
        complete(generated.error());
        return;
    }
    auto key = std::make_shared<SecretBytes>(std::move(generated).value());
    for (const auto &[existing, bytes] : m_keys) {
        if (sameBytes(bytes, *key)) {
            complete(fail(KeyringError::DuplicateKey));
            return;
        }
    }
    const QString name = *version;
    request(Call::Write, keyKey(name), key,
            [this, name, key, complete](KeychainStatus status, SecretBytes) {
                if (status != KeychainStatus::Ok) {
                    complete(errorOf(status));
                    return;
                }
                Index index{m_current, versions()};
                index.versions.append(name);
                writeIndex(index, [this, name, key, complete](Result<Unit> written) {
                    if (!written) {
                        complete(written.error());
                        return;
                    }
                    m_keys.emplace(name, std::move(*key));
                    complete(name);
                });
            });
}

void QtKeychainKeyring::useKey(const QString &version, Done<Unit> done)
{
    const Done<Unit> complete = beginChange(std::move(done), true);
    if (!complete)
        return;
    if (m_keys.count(version) == 0) {
        complete(fail(KeyringError::UnknownVersion));
        return;
    }
    writeIndex(Index{version, versions()}, [this, version, complete](Result<Unit> written) {
        if (written)
            m_current = version;
        complete(written);
    });
}

void QtKeychainKeyring::removeKey(const QString &version, Done<Unit> done)
{
    const Done<Unit> complete = beginChange(std::move(done), false);
    if (!complete)
        return;
    if (m_keys.count(version) == 0) {
        complete(fail(KeyringError::UnknownVersion));
        return;
    }
    if (version == m_current) {
        complete(fail(KeyringError::RemoveCurrent));
        return;
    }
    QStringList remaining = versions();
    remaining.removeAll(version);
    // The index stops naming the version first; a failed delete then leaves only an entry
    // that nothing reads.
    writeIndex(Index{m_current, remaining}, [this, version, complete](Result<Unit> written) {
        if (!written) {
            complete(written.error());
            return;
        }
        m_keys.erase(version);
        Q_EMIT keysChanged();
        request(Call::Remove, keyKey(version), nullptr,
                [complete](KeychainStatus status, SecretBytes) {
                    if (status == KeychainStatus::Ok || status == KeychainStatus::NotFound)
                        complete(Unit{});
                    else
                        complete(errorOf(status));
                });
    });
}

// --- Steps -----------------------------------------------------------------------------

void QtKeychainKeyring::readIndex(std::function<void(Result<Index>)> then)
{
    request(Call::Read, indexKey(), nullptr, [then](KeychainStatus status, SecretBytes bytes) {
        if (status == KeychainStatus::NotFound) {
            then(fail(KeyringError::MissingCurrent));
            return;
        }
        if (status != KeychainStatus::Ok) {
            then(errorOf(status));
            return;
        }
        const std::optional<Index> index = decodeIndex(bytes.bytes());
        if (!index) {
            then(fail(KeyringError::BadIndex));
            return;
        }
        then(*index);
    });
}

void QtKeychainKeyring::readKeys(Index index, std::shared_ptr<std::map<QString, SecretBytes>> keys,
                                 qsizetype next, std::function<void(Result<Unit>)> then)
{
    if (next == index.versions.size()) {
        for (auto i = keys->begin(); i != keys->end(); ++i) {
            for (auto j = std::next(i); j != keys->end(); ++j) {
                if (sameBytes(i->second, j->second)) {
                    then(fail(KeyringError::DuplicateKey));
                    return;
                }
            }
        }
        m_keys = std::move(*keys);
        m_current = index.current;
        m_loaded = true;
        then(Unit{});
        return;
    }
    const QString version = index.versions.at(next);
    request(Call::Read, keyKey(version), nullptr,
            [this, index, keys, next, version, then](KeychainStatus status, SecretBytes key) {
                if (status == KeychainStatus::NotFound) {
                    then(fail(version == index.current ? KeyringError::MissingCurrent
                                                       : KeyringError::BadIndex));
                    return;
                }
                if (status != KeychainStatus::Ok) {
                    then(errorOf(status));
                    return;
                }
                if (key.size() != kKeyBytes) {
                    then(fail(KeyringError::BadStoredKey));
                    return;
                }
                keys->emplace(version, std::move(key));
                readKeys(index, keys, next + 1, then);
            });
}

void QtKeychainKeyring::probe(std::function<void(Result<Unit>)> then)
{
    Result<SecretBytes> generated = randomBytes(kProbeBytes);
    if (!generated) {
        then(generated.error());
        return;
    }
    auto sample = std::make_shared<SecretBytes>(std::move(generated).value());
    request(
        Call::Write, probeKey(), sample, [this, sample, then](KeychainStatus written, SecretBytes) {
            if (written != KeychainStatus::Ok) {
                then(errorOf(written));
                return;
            }
            request(Call::Read, probeKey(), nullptr,
                    [this, sample, then](KeychainStatus read, SecretBytes bytes) {
                        // A store that loses or changes what it was just given is not usable.
                        const bool kept = read == KeychainStatus::Ok && sameBytes(bytes, *sample);
                        if (!kept) {
                            then(read == KeychainStatus::Denied ? errorOf(read)
                                                                : fail(KeyringError::Unavailable));
                            return;
                        }
                        request(Call::Remove, probeKey(), nullptr,
                                [then](KeychainStatus removed, SecretBytes) {
                                    if (removed != KeychainStatus::Ok)
                                        then(errorOf(removed));
                                    else
                                        then(Unit{});
                                });
                    });
        });
}

void QtKeychainKeyring::createFirstKey(std::function<void(Result<Unit>)> then)
{
    Result<QString> version = KeyVersion::generate();
    if (!version) {
        then(version.error());
        return;
    }
    Result<SecretBytes> generated = randomBytes(kKeyBytes);
    if (!generated) {
        then(generated.error());
        return;
    }
    auto key = std::make_shared<SecretBytes>(std::move(generated).value());
    const QString name = *version;
    // The key first, the index naming it second: an interrupted run leaves no index, so the
    // next start is still a first run rather than an index without its key.
    request(Call::Write, keyKey(name), key,
            [this, name, key, then](KeychainStatus status, SecretBytes) {
                if (status != KeychainStatus::Ok) {
                    then(errorOf(status));
                    return;
                }
                writeIndex(Index{name, {name}}, [this, name, key, then](Result<Unit> written) {
                    if (!written) {
                        then(written.error());
                        return;
                    }
                    m_keys.emplace(name, std::move(*key));
                    m_current = name;
                    m_loaded = true;
                    then(Unit{});
                });
            });
}

void QtKeychainKeyring::writeIndex(const Index &index, std::function<void(Result<Unit>)> then)
{
    auto bytes = std::make_shared<SecretBytes>(encodeIndex(index));
    request(Call::Write, indexKey(), bytes, [then](KeychainStatus status, SecretBytes) {
        if (status != KeychainStatus::Ok)
            then(errorOf(status));
        else
            then(Unit{});
    });
}

// --- Requests, retry and timeout ---------------------------------------------------------

bool QtKeychainKeyring::begin(std::function<void(Error)> abort)
{
    const std::optional<KeyringError> refusal = m_busy ? std::optional(KeyringError::Busy)
                                                : !m_configured
                                                    ? std::optional(KeyringError::Unavailable)
                                                    : std::nullopt;
    if (refusal) {
        // Never answered from inside the call, and only while this keyring lives.
        QMetaObject::invokeMethod(
            this, [abort = std::move(abort), error = fail(*refusal)] { abort(error); },
            Qt::QueuedConnection);
        return false;
    }
    m_busy = true;
    m_abort = std::move(abort);
    return true;
}

void QtKeychainKeyring::end()
{
    m_timeout.stop();
    // A late answer to an abandoned request must not reach the next operation.
    ++m_requestId;
    m_abort = nullptr;
    m_busy = false;
}

void QtKeychainKeyring::onTimeout()
{
    if (!m_busy)
        return;
    const std::function<void(Error)> abort = std::move(m_abort);
    const bool wasLoading = !m_loaded;
    end();
    if (wasLoading)
        forgetKeys();
    if (abort)
        abort(fail(KeyringError::Timeout));
}

void QtKeychainKeyring::request(Call call, const QString &key, std::shared_ptr<SecretBytes> data,
                                Reply then, bool retried)
{
    const quint64 id = ++m_requestId;
    m_timeout.start(m_options.jobTimeout);
    auto answer = [this, id, call, key, data, then, retried](KeychainStatus status,
                                                             SecretBytes bytes) {
        if (id != m_requestId)
            return; // timed out or superseded
        m_timeout.stop();
        if (status == KeychainStatus::Unavailable && !retried) {
            // The secret service may not be up yet (log-in, D-Bus activation): once more.
            QTimer::singleShot(m_options.retryDelay, this, [this, id, call, key, data, then] {
                if (id == m_requestId)
                    request(call, key, data, then, true);
            });
            return;
        }
        then(status, std::move(bytes));
    };
    switch (call) {
    case Call::Read:
        m_store->read(key, answer);
        return;
    case Call::Write:
        m_store->write(key, *data,
                       [answer](KeychainStatus status) { answer(status, SecretBytes()); });
        return;
    case Call::Remove:
        m_store->remove(key, [answer](KeychainStatus status) { answer(status, SecretBytes()); });
        return;
    }
}

void QtKeychainKeyring::forgetKeys()
{
    m_keys.clear();
    m_current.clear();
    m_loaded = false;
}

// --- Entry names and the index -----------------------------------------------------------

QString QtKeychainKeyring::indexKey() const
{
    return m_options.keyNamespace + QStringLiteral("/index");
}

QString QtKeychainKeyring::keyKey(const QString &version) const
{
    return m_options.keyNamespace + QStringLiteral("/key/") + version;
}

QString QtKeychainKeyring::probeKey() const
{
    return m_options.keyNamespace + QStringLiteral("/probe");
}

QByteArray QtKeychainKeyring::encodeIndex(const Index &index)
{
    QJsonObject object;
    object.insert(QStringLiteral("format"), 1);
    object.insert(QStringLiteral("current"), index.current);
    object.insert(QStringLiteral("versions"), QJsonArray::fromStringList(index.versions));
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

std::optional<QtKeychainKeyring::Index> QtKeychainKeyring::decodeIndex(const QByteArray &bytes)
{
    if (bytes.size() > kMaxIndexBytes)
        return std::nullopt;
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    const QJsonObject object = document.object();
    const QStringList fields{QStringLiteral("current"), QStringLiteral("format"),
                             QStringLiteral("versions")};
    if (object.keys() != fields || object.value(QStringLiteral("format")) != QJsonValue(1) ||
        !object.value(QStringLiteral("current")).isString() ||
        !object.value(QStringLiteral("versions")).isArray()) {
        return std::nullopt;
    }
    Index index;
    index.current = object.value(QStringLiteral("current")).toString();
    const QJsonArray versions = object.value(QStringLiteral("versions")).toArray();
    if (versions.isEmpty() || versions.size() > KeyDirectoryLoader::kMaxKeys)
        return std::nullopt;
    QSet<QString> seen;
    for (const QJsonValue &value : versions) {
        const QString version = value.toString();
        if (!value.isString() || !KeyVersion::isValid(version) || seen.contains(version))
            return std::nullopt;
        seen.insert(version);
        index.versions.append(version);
    }
    if (!seen.contains(index.current))
        return std::nullopt;
    return index;
}

} // namespace veetbot
