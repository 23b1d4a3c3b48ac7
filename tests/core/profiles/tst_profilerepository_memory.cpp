// The shared repository contract against the in-memory adapter.

#include "ProfileRepositoryContract.h"
#include "profiles/InMemoryProfileRepository.h"

using namespace veetbot;

class InMemoryProfileRepositoryTest : public ProfileRepositoryContract
{
    Q_OBJECT

protected:
    std::unique_ptr<BrowserProfileRepository> createRepository(ProfileClock clock) override
    {
        return std::make_unique<InMemoryProfileRepository>(std::move(clock));
    }
    bool isSharedStore() const override { return false; }
};

QTEST_GUILESS_MAIN(InMemoryProfileRepositoryTest)
#include "tst_profilerepository_memory.moc"
