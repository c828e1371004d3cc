#include "reconcile/wake_handlers.h"

#include <nlohmann/json.hpp>

#include "dgd/reconcile/cached_view.h"
#include "dgd/reconcile/model_cache.h"
#include "dgd/reconcile/scaling_adapters.h"
#include "dgd/render/render.h"

namespace dgd::reconcile {

using nlohmann::json;

// Not every DGD of the Job's namespace: the ones whose latest reconcile used it.
runtime::EventHandler wake_dgds_on_download_change(runtime::Controller& controller, DgdReconciler& reconciler,
                                                   std::chrono::milliseconds window) {
  auto wake = [&controller, &reconciler, window](const runtime::ObjectPtr& job) {
    const json obj = job->object();
    if (obj.value("/metadata/labels"_json_pointer, json::object()).count(render::kLabelModelCache) == 0) return;
    for (const auto& key : reconciler.dgds_using_job(job->ns(), job->name())) {
      controller.queue().add_after(key, window);
    }
  };
  runtime::EventHandler h;
  h.on_add = wake;
  h.on_delete = wake;
  h.on_update = [wake](const runtime::ObjectPtr& before, const runtime::ObjectPtr& after) {
    const json a = before->object(), b = after->object();
    if (download_state_changed(&a, &b)) wake(after);
  };
  return h;
}

runtime::EventHandler wake_dgd_of_adapter(runtime::Controller& controller, std::chrono::milliseconds window) {
  auto wake = [&controller, window](const runtime::ObjectPtr& a) {
    const std::string dgd = adapter_dgd(a->object());
    if (!dgd.empty()) controller.queue().add_after(a->ns() + "/" + dgd, window);
  };
  runtime::EventHandler h;
  h.on_add = wake;
  h.on_delete = wake;
  h.on_update = [wake](const runtime::ObjectPtr& before, const runtime::ObjectPtr& after) {
    if (changed_outside_status(before->json_text(), after->json_text())) wake(after);
  };
  return h;
}

}  // namespace dgd::reconcile
