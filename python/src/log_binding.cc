// The event log reader for Python (saltation/event_log_reader.h): read_events checks a JSON Lines
// log with the C++ reader, the one implementation of what a log may hold, before decoding it.
//
//   check_event_log(text, name)  the log's text; raises ValueError with the reader's message
//                                (file:line: record i: the field and what is wrong); the GIL is
//                                released while it parses
//   event_kinds                  the names of the record kinds (EventKindName), for the CSV reader
//   csv_columns                  the CSV's header (HookEventCsvHeader) split at its commas
//   record_fields                every field a record may hold (EventRecordFields)
#include <pybind11/pybind11.h>

#include <algorithm>
#include <string>

#include "bindings.h"
#include "saltation/event_csv.h"
#include "saltation/event_kind.h"
#include "saltation/event_log_reader.h"

namespace py = pybind11;

namespace saltation::python {

void BindLogs(py::module_& m) {
  m.def("check_event_log", [](const std::string& text, const std::string& name) {
    // the parse reads only the two C++ strings (converted before the call): other Python threads
    // run meanwhile; the message is raised with the GIL held again
    std::string error;
    bool failed = false;
    {
      py::gil_scoped_release released;
      try {
        ParseEventLog(text, name);
      } catch (const LogFormatError& e) {
        error = e.what();
        failed = true;
      }
    }
    if (failed) throw py::value_error(error);
  }, py::arg("text"), py::arg("name"), "ValueError when the text is not an event log (docs/log-format.md)");
  py::tuple kinds(std::size(kEventKinds));
  for (size_t i = 0; i < std::size(kEventKinds); i++) kinds[i] = EventKindName(kEventKinds[i]);
  m.attr("event_kinds") = kinds;
  py::list columns;
  const std::string header = HookEventCsvHeader();
  for (size_t start = 0; start <= header.size();) {
    const size_t comma = std::min(header.find(',', start), header.size());
    columns.append(header.substr(start, comma - start));
    start = comma + 1;
  }
  m.attr("csv_columns") = py::tuple(columns);
  py::list fields;
  for (const std::string& name : EventRecordFields()) fields.append(name);
  m.attr("record_fields") = py::tuple(fields);
}

}  // namespace saltation::python
