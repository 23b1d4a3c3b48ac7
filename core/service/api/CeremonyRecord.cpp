#include "CeremonyRecord.h"

namespace veetbot::ServiceCeremony {

QString stateName(State state)
{
    switch (state) {
    case State::Open:
        return QStringLiteral("open");
    case State::Verifying:
        return QStringLiteral("verifying");
    case State::Ready:
        return QStringLiteral("ready");
    case State::Failed:
        return QStringLiteral("failed");
    case State::Cancelled:
        return QStringLiteral("cancelled");
    case State::Expired:
        return QStringLiteral("expired");
    }
    return QString();
}

} // namespace veetbot::ServiceCeremony
