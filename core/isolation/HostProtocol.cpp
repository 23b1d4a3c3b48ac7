#include "HostProtocol.h"

#include "domain/ToolJson.h"
#include "domain/web/TestOverrides.h"
#include "json/StrictJson.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace veetbot::HostProtocol {

namespace {
QByteArray line(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

// Every line goes through the strict parser: a duplicate member name, invalid UTF-8 or a
// lone surrogate escape refuses the whole line.
std::optional<QJsonObject> parseObject(const QByteArray &bytes)
{
    const StrictJson::Limits limits{.maxBytes = kMaxLineBytes,
                                    .maxDepth = 64,
                                    .maxMembers = 1 << 20,
                                    .numbers = StrictJson::Numbers::Finite};
    const std::optional<QJsonValue> document = StrictJson::parse(bytes, limits);
    if (!document || !document->isObject())
        return std::nullopt;
    return document->toObject();
}

std::optional<quint64> readId(const QJsonObject &object)
{
    const auto id =
        ToolJson::integer(object.value(QStringLiteral("id")), 1, StrictJson::kMaxSafeInteger);
    if (!id)
        return std::nullopt;
    return quint64(*id);
}

// Role, name and disabled state are the observation's own; only what the observation does not
// carry crosses. A navigation target crosses as its summary: the URL never left the host.
QJsonObject factsToJson(const FactsByRef &facts)
{
    QJsonObject object;
    for (auto it = facts.constBegin(); it != facts.constEnd(); ++it) {
        QJsonArray labels;
        for (const LabelText &label : it->labels)
            labels.append(QJsonObject{{QStringLiteral("source"), labelSourceString(label.source)},
                                      {QStringLiteral("text"), label.text},
                                      {QStringLiteral("whole"), label.whole}});
        QJsonValue target(QJsonValue::Null);
        if (it->target)
            target = QJsonObject{
                {QStringLiteral("same_origin"), it->target->sameOrigin},
                {QStringLiteral("first_segment"), it->target->firstSegment},
                {QStringLiteral("sensitive"), it->target->sensitive},
                {QStringLiteral("path_consequence"),
                 consequenceString(it->target->pathConsequence)},
                {QStringLiteral("download"), it->target->download},
                {QStringLiteral("submission"), it->target->submission},
                {QStringLiteral("query_consequence"),
                 consequenceString(it->target->queryConsequence)},
                {QStringLiteral("consequential"), it->target->consequential},
                {QStringLiteral("writes"), it->target->writes},
            };
        object.insert(it.key(),
                      QJsonObject{{QStringLiteral("text"), it->visibleText},
                                  {QStringLiteral("text_whole"), it->visibleTextWhole},
                                  {QStringLiteral("dialog"), it->dialogName},
                                  {QStringLiteral("input_type"), it->inputType},
                                  {QStringLiteral("autocomplete"), it->autocomplete},
                                  {QStringLiteral("labels"), labels},
                                  {QStringLiteral("option"), it->selectedOption},
                                  {QStringLiteral("option_whole"), it->selectedOptionWhole},
                                  {QStringLiteral("field_kind"), fieldKindString(it->fieldKind)},
                                  {QStringLiteral("in_form"), it->inForm},
                                  {QStringLiteral("native"), it->native},
                                  {QStringLiteral("target"), target}});
    }
    return object;
}

std::optional<LabelText> labelFromJson(const QJsonValue &value)
{
    const QJsonObject record = value.toObject();
    const QJsonValue source = record.value(QStringLiteral("source"));
    const QJsonValue text = record.value(QStringLiteral("text"));
    const QJsonValue whole = record.value(QStringLiteral("whole"));
    if (!value.isObject() || record.size() != 3 || !source.isString() || !text.isString() ||
        !whole.isBool())
        return std::nullopt;
    const std::optional<LabelSource> kind = labelSourceFromString(source.toString());
    if (!kind)
        return std::nullopt;
    return LabelText{*kind, text.toString(), whole.toBool()};
}

// {"method","segment","consequence"}: exactly those, within WriteGuard's rules.
std::optional<WriteGuard::RefusedWrite> refusedWriteFromJson(const QJsonValue &value)
{
    const QJsonObject record = value.toObject();
    const QJsonValue method = record.value(QStringLiteral("method"));
    const QJsonValue segment = record.value(QStringLiteral("segment"));
    const QJsonValue consequence = record.value(QStringLiteral("consequence"));
    if (!value.isObject() || record.size() != 3 || !method.isString() || !segment.isString() ||
        !consequence.isString())
        return std::nullopt;
    const std::optional<BrowserActionConsequence> named =
        consequenceFromString(consequence.toString());
    if (!named)
        return std::nullopt;
    const WriteGuard::RefusedWrite summary{method.toString().toLatin1(), segment.toString(),
                                           *named};
    if (!WriteGuard::isValidRefusedWrite(summary))
        return std::nullopt;
    return summary;
}

std::optional<NavigationTarget> targetFromJson(const QJsonValue &value)
{
    const QJsonObject record = value.toObject();
    const QJsonValue sameOrigin = record.value(QStringLiteral("same_origin"));
    const QJsonValue firstSegment = record.value(QStringLiteral("first_segment"));
    const QJsonValue sensitive = record.value(QStringLiteral("sensitive"));
    const QJsonValue pathConsequence = record.value(QStringLiteral("path_consequence"));
    const QJsonValue download = record.value(QStringLiteral("download"));
    const QJsonValue submission = record.value(QStringLiteral("submission"));
    const QJsonValue queryConsequence = record.value(QStringLiteral("query_consequence"));
    const QJsonValue consequential = record.value(QStringLiteral("consequential"));
    const QJsonValue writes = record.value(QStringLiteral("writes"));
    if (!value.isObject() || record.size() != 9 || !sameOrigin.isBool() ||
        !firstSegment.isString() || !sensitive.isBool() || !pathConsequence.isString() ||
        !download.isBool() || !submission.isBool() || !queryConsequence.isString() ||
        !consequential.isBool() || !writes.isBool())
        return std::nullopt;
    const std::optional<BrowserActionConsequence> consequence =
        consequenceFromString(pathConsequence.toString());
    const std::optional<BrowserActionConsequence> query =
        consequenceFromString(queryConsequence.toString());
    if (!consequence || !query)
        return std::nullopt;
    return NavigationTarget{sameOrigin.toBool(),
                            firstSegment.toString(),
                            sensitive.toBool(),
                            *consequence,
                            download.toBool(),
                            submission.toBool(),
                            *query,
                            consequential.toBool(),
                            writes.toBool()};
}

std::optional<FactsByRef> factsFromJson(const QJsonValue &value,
                                        const BrowserObservation &observation)
{
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject object = value.toObject();
    if (object.size() > kMaxFactsElements)
        return std::nullopt;
    QHash<QString, const ElementRecord *> elements;
    for (const ElementRecord &element : observation.elements)
        elements.insert(element.ref, &element);
    FactsByRef facts;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const ElementRecord *element = elements.value(it.key());
        if (!element || !it.value().isObject())
            return std::nullopt;
        const QJsonObject record = it.value().toObject();
        const QJsonValue text = record.value(QStringLiteral("text"));
        const QJsonValue textWhole = record.value(QStringLiteral("text_whole"));
        const QJsonValue dialog = record.value(QStringLiteral("dialog"));
        const QJsonValue inputType = record.value(QStringLiteral("input_type"));
        const QJsonValue autocomplete = record.value(QStringLiteral("autocomplete"));
        const QJsonValue labels = record.value(QStringLiteral("labels"));
        const QJsonValue option = record.value(QStringLiteral("option"));
        const QJsonValue optionWhole = record.value(QStringLiteral("option_whole"));
        const QJsonValue fieldKind = record.value(QStringLiteral("field_kind"));
        const QJsonValue inForm = record.value(QStringLiteral("in_form"));
        const QJsonValue native = record.value(QStringLiteral("native"));
        const QJsonValue target = record.value(QStringLiteral("target"));
        if (record.size() != 12 || !text.isString() || !textWhole.isBool() || !dialog.isString() ||
            !inputType.isString() || !autocomplete.isString() || !labels.isArray() ||
            labels.toArray().size() > ElementFacts::kMaxLabels || !option.isString() ||
            !optionWhole.isBool() || !fieldKind.isString() || !inForm.isBool() ||
            !native.isBool() || !(target.isNull() || target.isObject()))
            return std::nullopt;
        ElementFacts elementFacts;
        elementFacts.role = element->role;
        elementFacts.accessibleName = element->name;
        elementFacts.disabled = element->state.disabled;
        elementFacts.visibleText = text.toString();
        elementFacts.visibleTextWhole = textWhole.toBool();
        elementFacts.dialogName = dialog.toString();
        elementFacts.inputType = inputType.toString();
        elementFacts.autocomplete = autocomplete.toString();
        for (const QJsonValue &label : labels.toArray()) {
            const std::optional<LabelText> parsed = labelFromJson(label);
            if (!parsed)
                return std::nullopt;
            elementFacts.labels.append(*parsed);
        }
        elementFacts.selectedOption = option.toString();
        elementFacts.selectedOptionWhole = optionWhole.toBool();
        const std::optional<FieldKind> kind = fieldKindFromString(fieldKind.toString());
        if (!kind)
            return std::nullopt;
        elementFacts.fieldKind = *kind;
        elementFacts.inForm = inForm.toBool();
        elementFacts.native = native.toBool();
        if (target.isObject()) {
            elementFacts.target = targetFromJson(target);
            if (!elementFacts.target)
                return std::nullopt;
        }
        if (!withinBounds(elementFacts))
            return std::nullopt;
        facts.insert(it.key(), elementFacts);
    }
    return facts;
}
} // namespace

QByteArray encodeRequest(const Request &request)
{
    QJsonObject object{{QStringLiteral("id"), double(request.id)},
                       {QStringLiteral("op"), request.op}};
    if (request.op == QLatin1String("navigate")) {
        object.insert(QStringLiteral("url"), request.url);
        if (request.until == NavigateRequest::Until::ContentLoaded)
            object.insert(QStringLiteral("until"), QStringLiteral("content_loaded"));
        if (request.guarded)
            object.insert(QStringLiteral("guarded"), true);
        if (request.discardUnsaved)
            object.insert(QStringLiteral("discard_unsaved"), true);
    } else if (request.op == QLatin1String("idle")) {
        object.insert(QStringLiteral("bound_ms"), request.idle.boundMs);
        object.insert(QStringLiteral("quiet_ms"), request.idle.quietMs);
    } else if (request.op == QLatin1String("observe"))
        object.insert(QStringLiteral("mode"), request.observe.toJson());
    else if (request.op == QLatin1String("act") && request.act) {
        object.insert(QStringLiteral("act"), request.act->toJson());
        if (request.constraint)
            object.insert(QStringLiteral("constraint"), request.constraint->toJson());
    } else if (request.op == QLatin1String("dispatch"))
        object.insert(QStringLiteral("open"), request.open);
    else if (request.op == QLatin1String("view")) {
        object.insert(QStringLiteral("start"), request.start);
        if (request.start) {
            object.insert(QStringLiteral("max_width"), request.viewMax.width());
            object.insert(QStringLiteral("max_height"), request.viewMax.height());
        }
    } else if (request.op == QLatin1String("input") && request.input)
        object.insert(QStringLiteral("input"), request.input->toJson());
    else if (request.op == QLatin1String("restore") && request.state)
        object.insert(QStringLiteral("state"), request.state->toJson());
    else if (request.op == QLatin1String("export")) {
        QJsonArray origins;
        for (const Origin &origin : request.origins)
            origins.append(origin.toString());
        object.insert(QStringLiteral("origins"), origins);
    }
    return line(object);
}

std::optional<Request> decodeRequest(const QByteArray &bytes, const TestOverrides &overrides)
{
    const auto object = parseObject(bytes);
    if (!object)
        return std::nullopt;
    const auto id = readId(*object);
    const QString op = object->value(QStringLiteral("op")).toString();
    if (!id)
        return std::nullopt;
    if (op == QLatin1String("navigate")) {
        const QJsonValue url = object->value(QStringLiteral("url"));
        const bool hasUntil = object->contains(QStringLiteral("until"));
        const bool hasGuarded = object->contains(QStringLiteral("guarded"));
        const bool hasDiscard = object->contains(QStringLiteral("discard_unsaved"));
        // Each flag is present only when true.
        if (object->size() != 3 + int(hasUntil) + int(hasGuarded) + int(hasDiscard) ||
            !url.isString() || (hasGuarded && object->value(QStringLiteral("guarded")) != true) ||
            (hasDiscard && object->value(QStringLiteral("discard_unsaved")) != true))
            return std::nullopt;
        Request request{*id, op, url.toString()};
        request.guarded = hasGuarded;
        request.discardUnsaved = hasDiscard;
        if (hasUntil) {
            if (object->value(QStringLiteral("until")) != QLatin1String("content_loaded"))
                return std::nullopt;
            request.until = NavigateRequest::Until::ContentLoaded;
        }
        return request;
    }
    if (op == QLatin1String("idle")) {
        const auto bound = ToolJson::integer(object->value(QStringLiteral("bound_ms")), 1,
                                             NetworkIdleRequest::kMaxBoundMs);
        const auto quiet = ToolJson::integer(object->value(QStringLiteral("quiet_ms")), 1,
                                             NetworkIdleRequest::kMaxQuietMs);
        if (object->size() != 4 || !bound || !quiet)
            return std::nullopt;
        Request request{*id, op};
        request.idle = {int(*bound), int(*quiet)};
        return request;
    }
    if (op == QLatin1String("frame")) {
        if (object->size() != 2)
            return std::nullopt;
        return Request{*id, op};
    }
    if (op == QLatin1String("view")) {
        Request request{*id, op};
        const std::optional<bool> start = ToolJson::boolean(object->value(QStringLiteral("start")));
        if (!start)
            return std::nullopt;
        request.start = *start;
        if (!request.start)
            return object->size() == 3 ? std::optional<Request>(request) : std::nullopt;
        const auto width = ToolJson::integer(object->value(QStringLiteral("max_width")), 1, 4096);
        const auto height = ToolJson::integer(object->value(QStringLiteral("max_height")), 1, 4096);
        if (object->size() != 5 || !width || !height)
            return std::nullopt;
        request.viewMax = QSize(int(*width), int(*height));
        return request;
    }
    if (op == QLatin1String("input")) {
        const QJsonValue input = object->value(QStringLiteral("input"));
        if (object->size() != 3 || !input.isObject())
            return std::nullopt;
        Request request{*id, op};
        request.input = OwnerInput::fromJson(input.toObject());
        if (!request.input)
            return std::nullopt;
        return request;
    }
    if (op == QLatin1String("observe")) {
        const QJsonValue mode = object->value(QStringLiteral("mode"));
        if (object->size() != 3 || !mode.isObject())
            return std::nullopt;
        const Result<ObserveRequest> observe = ObserveRequest::fromJson(mode.toObject());
        if (!observe)
            return std::nullopt;
        return Request{*id, op, QString(), observe.value()};
    }
    if (op == QLatin1String("act")) {
        const QJsonValue act = object->value(QStringLiteral("act"));
        const bool constrained = object->contains(QStringLiteral("constraint"));
        if (object->size() != (constrained ? 4 : 3) || !act.isObject())
            return std::nullopt;
        const Result<ActRequest> parsed = ActRequest::fromJson(act.toObject());
        if (!parsed)
            return std::nullopt;
        Request request{*id, op};
        request.act = parsed.value();
        if (constrained) {
            request.constraint =
                DispatchConstraint::fromJson(object->value(QStringLiteral("constraint")));
            if (!request.constraint)
                return std::nullopt;
        }
        return request;
    }
    if (op == QLatin1String("dispatch")) {
        const QJsonValue open = object->value(QStringLiteral("open"));
        if (object->size() != 3 || !open.isBool())
            return std::nullopt;
        Request request{*id, op};
        request.open = open.toBool();
        return request;
    }
    if (op == QLatin1String("restore")) {
        const QJsonValue state = object->value(QStringLiteral("state"));
        if (object->size() != 3 || !state.isObject())
            return std::nullopt;
        Result<SessionState> parsed = SessionState::fromJson(state.toObject(), overrides);
        if (!parsed)
            return std::nullopt;
        Request request{*id, op};
        request.state = std::move(parsed).value();
        return request;
    }
    if (op == QLatin1String("export")) {
        const QJsonValue origins = object->value(QStringLiteral("origins"));
        if (object->size() != 3 || !origins.isArray() ||
            origins.toArray().size() > SessionState::kMaxOrigins)
            return std::nullopt;
        Request request{*id, op};
        for (const QJsonValue &value : origins.toArray()) {
            const Result<Origin> origin = Origin::parse(value.toString(), overrides);
            if (!value.isString() || !origin || origin->toString() != value.toString())
                return std::nullopt;
            request.origins.append(*origin);
        }
        return request;
    }
    return std::nullopt;
}

FactsByRef factsFor(const BrowserProvider *provider, const Result<BrowserObservation> &result)
{
    FactsByRef facts;
    if (!provider || !result)
        return facts;
    for (const ElementRecord &element : result->elements) {
        if (auto fact = provider->elementFacts(result->revision, element.ref))
            facts.insert(element.ref, *fact);
    }
    return facts;
}

QByteArray encodeRestored(quint64 id)
{
    return line(
        QJsonObject{{QStringLiteral("id"), double(id)}, {QStringLiteral("restored"), true}});
}

QByteArray encodeState(quint64 id, const SessionState &state)
{
    return line(
        QJsonObject{{QStringLiteral("id"), double(id)}, {QStringLiteral("state"), state.toJson()}});
}

std::optional<PageEvidence> pageEvidenceFor(const BrowserProvider *provider,
                                            const Result<BrowserObservation> &result)
{
    if (!provider || !result)
        return std::nullopt;
    return provider->pageEvidence(result->revision);
}

QByteArray encodeIdle(quint64 id, bool idle)
{
    return line(QJsonObject{{QStringLiteral("id"), double(id)}, {QStringLiteral("idle"), idle}});
}

QByteArray encodeScreen(const OwnerViewFrame &frame)
{
    QJsonObject object = frame.toJson();
    object.insert(QStringLiteral("event"), QStringLiteral("screen"));
    return line(object);
}

QByteArray encodeFrame(quint64 id, const LiveFrame &frame)
{
    return line(
        QJsonObject{{QStringLiteral("id"), double(id)}, {QStringLiteral("frame"), frame.toJson()}});
}

QByteArray encodeReady()
{
    return line(QJsonObject{{QStringLiteral("event"), QStringLiteral("ready")}});
}

QByteArray encodeDispatchGate(quint64 id)
{
    return line(QJsonObject{{QStringLiteral("id"), double(id)},
                            {QStringLiteral("event"), QStringLiteral("dispatch")}});
}

QByteArray encodeResult(quint64 id, const Result<BrowserObservation> &result,
                        const FactsByRef &facts, const std::optional<PageEvidence> &page,
                        const std::optional<EngineIdentity> &engine)
{
    QJsonObject object{{QStringLiteral("id"), double(id)}};
    if (result.ok()) {
        object.insert(QStringLiteral("observation"), result.value().toJson());
        if (!facts.isEmpty())
            object.insert(QStringLiteral("facts"), factsToJson(facts));
        if (page) {
            QJsonObject evidence{{QStringLiteral("challenge_frames"), page->challengeFrames}};
            if (page->lateWrites > 0)
                evidence.insert(QStringLiteral("late_writes"), page->lateWrites);
            if (page->strangerRequestsRefused > 0)
                evidence.insert(QStringLiteral("strangers_refused"), page->strangerRequestsRefused);
            if (page->refusedWrite)
                evidence.insert(
                    QStringLiteral("refused"),
                    QJsonObject{
                        {QStringLiteral("method"), QString::fromLatin1(page->refusedWrite->method)},
                        {QStringLiteral("segment"), page->refusedWrite->segment},
                        {QStringLiteral("consequence"),
                         consequenceString(page->refusedWrite->consequence)}});
            object.insert(QStringLiteral("page"), evidence);
        }
        if (engine)
            object.insert(QStringLiteral("engine"), engine->toJson());
    } else
        object.insert(QStringLiteral("error"),
                      QJsonObject{{QStringLiteral("code"), result.error().code},
                                  {QStringLiteral("message"), result.error().message}});
    return line(object);
}

std::optional<Response> decodeResponse(const QByteArray &bytes, const TestOverrides &overrides)
{
    const auto object = parseObject(bytes);
    if (!object)
        return std::nullopt;
    if (object->size() == 1 && object->value(QStringLiteral("event")) == QLatin1String("ready")) {
        Response response;
        response.ready = true;
        return response;
    }
    if (object->value(QStringLiteral("event")) == QLatin1String("screen")) {
        // A frame of the owner's view: a JPEG within its bound, a sane size, a bare page.
        QJsonObject frame = *object;
        frame.remove(QStringLiteral("event"));
        Response response;
        response.screen = OwnerViewFrame::fromJson(frame);
        if (!response.screen)
            return std::nullopt;
        return response;
    }
    const auto id = readId(*object);
    if (!id)
        return std::nullopt;
    Response response;
    response.id = *id;
    if (object->size() == 2 &&
        object->value(QStringLiteral("event")) == QLatin1String("dispatch")) {
        response.dispatchGate = true;
        return response;
    }
    if (object->contains(QStringLiteral("observation"))) {
        const QJsonValue observation = object->value(QStringLiteral("observation"));
        const bool hasFacts = object->contains(QStringLiteral("facts"));
        const bool hasPage = object->contains(QStringLiteral("page"));
        const bool hasEngine = object->contains(QStringLiteral("engine"));
        if (!observation.isObject() ||
            object->size() != 2 + int(hasFacts) + int(hasPage) + int(hasEngine))
            return std::nullopt;
        if (hasEngine) {
            response.engine = EngineIdentity::fromJson(object->value(QStringLiteral("engine")));
            if (!response.engine)
                return std::nullopt;
        }
        if (hasPage) {
            const QJsonObject page = object->value(QStringLiteral("page")).toObject();
            const std::optional<qint64> frames =
                ToolJson::integer(page.value(QStringLiteral("challenge_frames")), 0,
                                  PageEvidence::kMaxChallengeFrames);
            const bool hasLate = page.contains(QStringLiteral("late_writes"));
            const std::optional<qint64> late =
                hasLate ? ToolJson::integer(page.value(QStringLiteral("late_writes")), 1,
                                            PageEvidence::kMaxLateWrites)
                        : std::optional<qint64>(0);
            const bool hasStrangers = page.contains(QStringLiteral("strangers_refused"));
            const std::optional<qint64> strangers =
                hasStrangers ? ToolJson::integer(page.value(QStringLiteral("strangers_refused")), 1,
                                                 PageEvidence::kMaxLateWrites)
                             : std::optional<qint64>(0);
            const bool hasRefused = page.contains(QStringLiteral("refused"));
            std::optional<WriteGuard::RefusedWrite> refused;
            if (hasRefused) {
                refused = refusedWriteFromJson(page.value(QStringLiteral("refused")));
                if (!refused)
                    return std::nullopt;
            }
            if (!object->value(QStringLiteral("page")).isObject() ||
                page.size() != 1 + int(hasLate) + int(hasRefused) + int(hasStrangers) || !frames ||
                !late || !strangers)
                return std::nullopt;
            response.page = PageEvidence{int(*frames), int(*late), refused, int(*strangers)};
        }
        response.result = BrowserObservation::fromJson(observation.toObject(), overrides);
        if (hasFacts && response.result.ok()) {
            auto facts =
                factsFromJson(object->value(QStringLiteral("facts")), response.result.value());
            if (!facts)
                return std::nullopt;
            response.facts = std::move(*facts);
        }
        return response;
    }
    if (object->size() != 2)
        return std::nullopt;
    if (object->contains(QStringLiteral("restored"))) {
        if (object->value(QStringLiteral("restored")) != QJsonValue(true))
            return std::nullopt;
        response.restored = true;
        return response;
    }
    if (object->contains(QStringLiteral("idle"))) {
        const QJsonValue idle = object->value(QStringLiteral("idle"));
        if (!idle.isBool())
            return std::nullopt;
        response.idle = idle.toBool();
        return response;
    }
    if (object->contains(QStringLiteral("frame"))) {
        response.frame = LiveFrame::fromJson(object->value(QStringLiteral("frame")));
        if (!response.frame)
            return std::nullopt;
        return response;
    }
    if (object->contains(QStringLiteral("state"))) {
        const QJsonValue state = object->value(QStringLiteral("state"));
        if (!state.isObject())
            return std::nullopt;
        Result<SessionState> parsed = SessionState::fromJson(state.toObject(), overrides);
        if (!parsed)
            return std::nullopt;
        response.state = std::move(parsed).value();
        return response;
    }
    const QJsonValue error = object->value(QStringLiteral("error"));
    if (!error.isObject())
        return std::nullopt;
    const auto reason =
        reasonCodeFromString(error.toObject().value(QStringLiteral("code")).toString());
    response.result = reason ? Result<BrowserObservation>(*reason)
                             : Result<BrowserObservation>(ReasonCode::ProviderUnavailable);
    return response;
}

} // namespace veetbot::HostProtocol
