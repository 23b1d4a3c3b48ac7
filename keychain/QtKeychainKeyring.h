#pragma once

#include "KeychainStore.h"

#include "ports/Keyring.h"

#include <QObject>
#include <QTimer>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace veetbot {

struct QtKeychainKeyringOptions
{
    // The secret-service "service" attribute of every entry.
    QString service = QStringLiteral("veetbot-workbench");
    // Every entry's key starts with "<keyNamespace>/": "/index", "/key/<version>", "/probe".
    // Same grammar as a key version.
    QString keyNamespace = QStringLiteral("vault-keyring");
    // One store request that takes longer fails the operation with keyring.timeout.
    std::chrono::milliseconds jobTimeout{10000};
    // A request that finds no secret service is retried once after this delay (the service
    // may not be up yet at log-in).
    std::chrono::milliseconds retryDelay{2000};
};

// The desktop keyring: keys live in the user's secret service through QtKeychain, under an
// index entry (current version and version list) and one entry per key. Loading is
// asynchronous and up-front; afterwards the Keyring interface serves from memory. It never
// uses QtKeychain's insecure fallback, never writes a key to a file, never treats "not
// found" as a first run by itself (only initializeIfEmpty with a passing write-read-delete
// probe and an empty vault creates a key), and never derives or defaults a key.
//
// Operations run one at a time; each answers its callback exactly once, never from inside the
// call, and only while the keyring lives. A second operation while one runs fails with
// keyring.busy.
class QtKeychainKeyring final : public QObject, public Keyring
{
    Q_OBJECT
public:
    template <typename T> using Done = std::function<void(Result<T>)>;

    explicit QtKeychainKeyring(QtKeychainKeyringOptions options = {}, QObject *parent = nullptr);
    // For tests: any store (a fake one that never answers, fails first, ...).
    QtKeychainKeyring(std::unique_ptr<KeychainStore> store, QtKeychainKeyringOptions options,
                      QObject *parent = nullptr);
    ~QtKeychainKeyring() override;

    // Reads the index and every key. A missing index is keyring.missing_current.
    void load(Done<Unit> done);
    // Loads; if the index is missing and `vaultIsEmpty` (the caller's vault holds no sealed
    // record) and a write-read-delete probe of the store succeeds, creates the first key.
    void initializeIfEmpty(bool vaultIsEmpty, Done<Unit> done);
    // Stores a new random key under a new version (current unchanged); answers the version.
    void addKey(Done<QString> done);
    // Makes a held version current.
    void useKey(const QString &version, Done<Unit> done);
    // Forgets a version that is not current; the caller checks no envelope still names it.
    void removeKey(const QString &version, Done<Unit> done);

    bool isLoaded() const { return m_loaded; }
    bool isBusy() const { return m_busy; }

    Result<QString> currentVersion() const override;
    Result<SecretBytes> key(const QString &version) const override;
    QStringList versions() const override;

Q_SIGNALS:
    // The held keys or the current version changed (after a load, add, use or remove).
    void keysChanged();

private:
    enum class Call
    {
        Read,
        Write,
        Remove
    };
    using Reply = std::function<void(KeychainStatus, SecretBytes)>;
    struct Index
    {
        QString current;
        QStringList versions;
    };

    // Starts an operation (`abort` answers it on timeout), or answers `abort` later with
    // keyring.busy / keyring.unavailable (misconfigured) and returns false.
    bool begin(std::function<void(Error)> abort);
    // Ends the running operation and answers its callback on a later event-loop turn (never
    // from inside a public call, never after this keyring is destroyed).
    template <typename T> void finish(const Done<T> &done, Result<T> result);
    // Starts an operation on loaded keys: the function that ends it (emitting keysChanged on
    // success when `announce`), or nothing when it did not start (`done` then has, or will
    // have, its answer: keyring.busy, keyring.unavailable or keyring.not_loaded).
    template <typename T> Done<T> beginChange(Done<T> done, bool announce);
    void end();
    void request(Call call, const QString &key, std::shared_ptr<SecretBytes> data, Reply then,
                 bool retried = false);
    void onTimeout();

    void readIndex(std::function<void(Result<Index>)> then);
    void readKeys(Index index, std::shared_ptr<std::map<QString, SecretBytes>> keys, qsizetype next,
                  std::function<void(Result<Unit>)> then);
    void probe(std::function<void(Result<Unit>)> then);
    void createFirstKey(std::function<void(Result<Unit>)> then);
    void writeIndex(const Index &index, std::function<void(Result<Unit>)> then);
    void loadOrInitialize(bool initialize, bool vaultIsEmpty, Done<Unit> done);
    void forgetKeys();

    QString indexKey() const;
    QString keyKey(const QString &version) const;
    QString probeKey() const;
    static QByteArray encodeIndex(const Index &index);
    static std::optional<Index> decodeIndex(const QByteArray &bytes);

    std::unique_ptr<KeychainStore> m_store;
    QtKeychainKeyringOptions m_options;
    bool m_configured = false;
    QTimer m_timeout;
    quint64 m_requestId = 0;
    std::function<void(Error)> m_abort;
    bool m_busy = false;
    bool m_loaded = false;
    QString m_current;
    std::map<QString, SecretBytes> m_keys;
};

} // namespace veetbot
