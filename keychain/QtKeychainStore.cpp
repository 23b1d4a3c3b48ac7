#include "QtKeychainStore.h"

#include <qt6keychain/keychain.h>

namespace veetbot {

namespace {

KeychainStatus statusOf(const QKeychain::Job *job)
{
    switch (job->error()) {
    case QKeychain::NoError:
        return KeychainStatus::Ok;
    case QKeychain::EntryNotFound:
        return KeychainStatus::NotFound;
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
        return KeychainStatus::Denied;
    case QKeychain::CouldNotDeleteEntry:
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
    case QKeychain::OtherError:
        return KeychainStatus::Unavailable;
    }
    return KeychainStatus::Unavailable;
}

// Jobs have no parent and delete themselves when they finish: the secret-service callback
// of a job still in flight must never meet a deleted job, even after this store is gone. The
// answer is delivered only while the store lives (it is the connection's context).
template <typename JobType> JobType *newJob(const QString &service, const QString &key)
{
    auto *job = new JobType(service);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    return job;
}

} // namespace

QtKeychainStore::QtKeychainStore(QString service, QObject *parent)
    : KeychainStore(parent), m_service(std::move(service))
{
}

void QtKeychainStore::read(const QString &key, ReadDone done)
{
    auto *job = newJob<QKeychain::ReadPasswordJob>(m_service, key);
    connect(job, &QKeychain::Job::finished, this,
            [done = std::move(done)](QKeychain::Job *finished) {
                auto *readJob = static_cast<QKeychain::ReadPasswordJob *>(finished);
                const KeychainStatus status = statusOf(readJob);
                if (status != KeychainStatus::Ok) {
                    done(status, SecretBytes());
                    return;
                }
                done(status, SecretBytes(readJob->binaryData()));
            });
    job->start();
}

void QtKeychainStore::write(const QString &key, const SecretBytes &data, Done done)
{
    auto *job = newJob<QKeychain::WritePasswordJob>(m_service, key);
    job->setBinaryData(data.bytes());
    connect(job, &QKeychain::Job::finished, this,
            [done = std::move(done)](QKeychain::Job *finished) { done(statusOf(finished)); });
    job->start();
}

void QtKeychainStore::remove(const QString &key, Done done)
{
    auto *job = newJob<QKeychain::DeletePasswordJob>(m_service, key);
    connect(job, &QKeychain::Job::finished, this,
            [done = std::move(done)](QKeychain::Job *finished) { done(statusOf(finished)); });
    job->start();
}

} // namespace veetbot
