// Umbrella header of the saltation library.
#ifndef SALTATION_SALTATION_H_
#define SALTATION_SALTATION_H_

#include "saltation/compare.h"
#include "saltation/config.h"
#include "saltation/contacts.h"
#include "saltation/control_table.h"
#include "saltation/errors.h"
#include "saltation/event_csv.h"
#include "saltation/event_json.h"
#include "saltation/event_log_header.h"
#include "saltation/event_log_reader.h"
#include "saltation/events.h"
#include "saltation/finite_difference.h"
#include "saltation/floquet.h"
#include "saltation/guards.h"
#include "saltation/hook.h"
#include "saltation/impact.h"
#include "saltation/islands.h"
#include "saltation/json_text.h"
#include "saltation/json_value.h"
#include "saltation/loading.h"
#include "saltation/mocap_table.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"
#include "saltation/psd_solver.h"
#include "saltation/restitution.h"
#include "saltation/rigid_simulator.h"
#include "saltation/saltation_matrix.h"
#include "saltation/tangent.h"
#include "saltation/version.h"

#endif  // SALTATION_SALTATION_H_
