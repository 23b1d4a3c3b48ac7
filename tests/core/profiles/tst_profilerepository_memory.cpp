// The shared repository contract against the in-memory adapter.

#include "ProfileRepositoryContract.h"
#include "profiles/InMemoryProfileRepository.h"

using namespace veetbot;

class InMemoryProfileRepositoryTest : public ProfileRepositoryContract
{
    Q_OBJECT

protected:
    MetadataPorts createRepository(ProfileClock clock) override
    {
        auto repository = std::make_shared<InMemoryProfileRepository>(std::move(clock));
        return {repository, repository.get(), repository.get()};
    }
    bool isSharedStore() const override { return false; }
};

QTEST_GUILESS_MAIN(InMemoryProfileRepositoryTest)
#include "tst_profilerepository_memory.moc"
