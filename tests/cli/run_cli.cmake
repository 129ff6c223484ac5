# Runs the geolin tool once and checks what it did. Used by the cli_* tests (CMakeLists.txt).
#   cmake -DCLI=<geolin> -DARGS="a|b|c" [-DPIPE_ARGS="x|y"] [-DEXPECT_EXIT=0|1|2|nonzero]
#         [-DSTDOUT_REGEX="re1&&re2"] [-DSTDERR_REGEX="re1&&re2"] [-DJSON_MEMBERS="A|B"]
#         [-DLINKS_OF=model.urdf] [-DSTDOUT_LINES=N] [-DJSON_SHAPE="B=36x36"]
#         [-DOUTPUT_FILE=path [-DOUTPUT_FILE_REGEX="re1&&re2"]] [-DSTDOUT_NOT="re1&&re2"]
#         [-DSTDERR_NOT="re1&&re2"] [-DSTDERR_EMPTY=1] [-DSTDOUT_MAX_BYTES=N|-DSTDOUT_MAX_BYTES_OF=f]
#         [-DJSON_LENGTH="a 0 b=N|..."] [-DINPUT_FILE=path] [-DVMEM_LIMIT_KB=N] [-DTTY=1]
#         [-DABSENT_FILE=path] [-DEXISTING_FILE=path] [-DREQUIRES=path] -P run_cli.cmake
# ARGS and PIPE_ARGS are '|'-separated; with PIPE_ARGS, `geolin PIPE_ARGS | geolin ARGS` runs.
# Each regex of STDOUT_REGEX / STDERR_REGEX ('&&'-separated) must match; a backslash-n (-r) in
# one stands for a newline (carriage return), which cannot pass through a test's command line. JSON_MEMBERS: stdout
# must be a JSON object with these members; a member that is a list of lists must be square when
# named A, M or Minv. LINKS_OF: every <link name="..."> of that URDF must appear in stdout.
# STDOUT_LINES: stdout must have exactly N lines. JSON_SHAPE: members that are matrices of these
# sizes (ROWSxCOLS, '|'-separated). OUTPUT_FILE: a file the run must create (it is removed first),
# whose text must match every regex of OUTPUT_FILE_REGEX.
# STDOUT_NOT / STDERR_NOT: regexes that must not match; STDERR_EMPTY: nothing on stderr.
# STDOUT_MAX_BYTES: at most N bytes on stdout (STDOUT_MAX_BYTES_OF: at most the size of that file
# times STDOUT_MAX_FACTOR, default 1). JSON_LENGTH: the JSON member at that path (space-separated
# keys and indices) has N elements. INPUT_FILE: standard input of the (last) geolin. VMEM_LIMIT_KB:
# run geolin under `ulimit -v N` (sh). TTY: run it in a pseudo-terminal (util-linux `script`,
# stdout and stderr then both arrive on stdout). ABSENT_FILE: must not exist afterwards (removed
# first). EXISTING_FILE: written before the run, must still exist afterwards. REQUIRES: an optional file; without it the test prints "SKIPPED: ..." and passes (the
# test's SKIP_REGULAR_EXPRESSION marks it skipped).
if(NOT DEFINED CLI)
  message(FATAL_ERROR "run_cli.cmake: CLI is not set")
endif()
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()
if(DEFINED REQUIRES AND NOT EXISTS "${REQUIRES}")
  message("SKIPPED: the optional file ${REQUIRES} is not present")
  return()
endif()
string(REPLACE "|" ";" args "${ARGS}")
if(DEFINED OUTPUT_FILE)
  file(REMOVE "${OUTPUT_FILE}")
endif()
if(DEFINED ABSENT_FILE)
  file(REMOVE "${ABSENT_FILE}")
endif()
if(DEFINED EXISTING_FILE)
  file(WRITE "${EXISTING_FILE}" "a file that was there before the run\n")
endif()
# The command line of the (last) geolin, possibly wrapped.
set(command "${CLI}" ${args})
if(DEFINED VMEM_LIMIT_KB)
  set(command sh -c "ulimit -v ${VMEM_LIMIT_KB} && exec \"$@\"" geolin_limited ${command})
endif()
if(TTY)
  set(quoted "")
  foreach(word IN LISTS command)
    string(APPEND quoted " '${word}'")
  endforeach()
  set(command script -qefc "${quoted}" /dev/null)
endif()
set(input "")
if(DEFINED INPUT_FILE)
  set(input INPUT_FILE "${INPUT_FILE}")
endif()
if(DEFINED PIPE_ARGS)
  string(REPLACE "|" ";" pipe_args "${PIPE_ARGS}")
  execute_process(COMMAND "${CLI}" ${pipe_args} COMMAND ${command}
                  RESULTS_VARIABLE results OUTPUT_VARIABLE out ERROR_VARIABLE err)
  list(GET results 0 first_rc)
  list(GET results 1 rc)
  if(NOT first_rc EQUAL 0)
    message(FATAL_ERROR "geolin ${PIPE_ARGS} exited with ${first_rc}\nstderr:\n${err}")
  endif()
else()
  execute_process(COMMAND ${command} ${input} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
endif()

set(context "geolin ${ARGS}\n--- exit status: ${rc}\n--- stdout:\n${out}\n--- stderr:\n${err}")
string(LENGTH "${context}" context_length)
if(context_length GREATER 6000)
  string(SUBSTRING "${context}" 0 6000 context)
  string(APPEND context "\n[...]")
endif()

if(EXPECT_EXIT STREQUAL "nonzero")
  if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "expected a non-zero exit status\n${context}")
  endif()
elseif(NOT rc STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "expected exit status ${EXPECT_EXIT}\n${context}")
endif()

if(DEFINED OUTPUT_FILE)
  if(NOT EXISTS "${OUTPUT_FILE}")
    message(FATAL_ERROR "the output file ${OUTPUT_FILE} was not written\n${context}")
  endif()
  file(READ "${OUTPUT_FILE}" file_text)
endif()

# check_regexes(STREAM TEXT SPEC MUST_MATCH): each '&&'-separated regex of SPEC must match TEXT
# (MUST_MATCH true) or must not. Split by hand: a CMake list would not split inside [...]
# (regex classes).
function(check_regexes stream text spec must_match)
  set(rest "${spec}")
  while(NOT rest STREQUAL "")
    string(FIND "${rest}" "&&" pos)
    if(pos EQUAL -1)
      set(re "${rest}")
      set(rest "")
    else()
      string(SUBSTRING "${rest}" 0 ${pos} re)
      math(EXPR pos "${pos} + 2")
      string(SUBSTRING "${rest}" ${pos} -1 rest)
    endif()
    string(REPLACE "\\n" "\n" re "${re}")  # "\\n" in a regex: a newline
    string(REPLACE "\\r" "\r" re "${re}")  # "\\r": a carriage return
    if(must_match AND NOT text MATCHES "${re}")
      message(FATAL_ERROR "${stream} does not match '${re}'\n${context}")
    elseif(NOT must_match AND text MATCHES "${re}")
      message(FATAL_ERROR
              "${stream} matches '${re}' ('${CMAKE_MATCH_0}'), which it must not\n${context}")
    endif()
  endwhile()
endfunction()

if(DEFINED STDOUT_REGEX)
  check_regexes(stdout "${out}" "${STDOUT_REGEX}" TRUE)
endif()
if(DEFINED STDERR_REGEX)
  check_regexes(stderr "${err}" "${STDERR_REGEX}" TRUE)
endif()
if(DEFINED OUTPUT_FILE_REGEX)
  check_regexes(file "${file_text}" "${OUTPUT_FILE_REGEX}" TRUE)
endif()
if(DEFINED STDOUT_NOT)
  check_regexes(stdout "${out}" "${STDOUT_NOT}" FALSE)
endif()
if(DEFINED STDERR_NOT)
  check_regexes(stderr "${err}" "${STDERR_NOT}" FALSE)
endif()

if(STDERR_EMPTY AND NOT err STREQUAL "")
  message(FATAL_ERROR "expected nothing on stderr\n${context}")
endif()

if(DEFINED STDOUT_MAX_BYTES_OF)
  file(SIZE "${STDOUT_MAX_BYTES_OF}" size_of)
  if(NOT DEFINED STDOUT_MAX_FACTOR)
    set(STDOUT_MAX_FACTOR 1)
  endif()
  math(EXPR STDOUT_MAX_BYTES "${size_of} * ${STDOUT_MAX_FACTOR}")
endif()
if(DEFINED STDOUT_MAX_BYTES)
  string(LENGTH "${out}" out_bytes)
  if(out_bytes GREATER STDOUT_MAX_BYTES)
    message(FATAL_ERROR "stdout has ${out_bytes} bytes, more than ${STDOUT_MAX_BYTES}\n${context}")
  endif()
endif()

if(DEFINED EXISTING_FILE AND NOT EXISTS "${EXISTING_FILE}")
  message(FATAL_ERROR "the run removed ${EXISTING_FILE}, which it had not created\n${context}")
endif()

if(DEFINED ABSENT_FILE AND EXISTS "${ABSENT_FILE}")
  message(FATAL_ERROR "the file ${ABSENT_FILE} exists, but the run must not leave it\n${context}")
endif()

if(DEFINED JSON_LENGTH)
  string(REPLACE "|" ";" lengths "${JSON_LENGTH}")
  foreach(entry IN LISTS lengths)
    if(NOT entry MATCHES "^([^=]+)=([0-9]+)$")
      message(FATAL_ERROR "run_cli.cmake: bad JSON_LENGTH entry '${entry}'")
    endif()
    string(REPLACE " " ";" path "${CMAKE_MATCH_1}")
    set(want "${CMAKE_MATCH_2}")
    string(JSON got ERROR_VARIABLE json_error LENGTH "${out}" ${path})
    if(json_error OR NOT got EQUAL want)
      message(FATAL_ERROR "JSON member '${CMAKE_MATCH_1}' has ${got} elements, not ${want} "
                          "${json_error}\n${context}")
    endif()
  endforeach()
endif()

if(DEFINED STDOUT_LINES)
  string(REGEX MATCHALL "\n" newlines "${out}")
  list(LENGTH newlines lines)
  if(NOT lines EQUAL STDOUT_LINES)
    message(FATAL_ERROR "expected ${STDOUT_LINES} lines on stdout, got ${lines}\n${context}")
  endif()
endif()

if(DEFINED JSON_MEMBERS)
  string(JSON type ERROR_VARIABLE json_error TYPE "${out}")
  if(json_error OR NOT type STREQUAL "OBJECT")
    message(FATAL_ERROR "stdout is not a JSON object: ${json_error}\n${context}")
  endif()
  string(REPLACE "|" ";" members "${JSON_MEMBERS}")
  foreach(m IN LISTS members)
    string(JSON member_type ERROR_VARIABLE json_error TYPE "${out}" "${m}")
    if(json_error)
      message(FATAL_ERROR "JSON member '${m}' missing: ${json_error}\n${context}")
    endif()
    if(m MATCHES "^(A|M|Minv)$")
      string(JSON n ERROR_VARIABLE json_error LENGTH "${out}" "${m}")
      string(JSON cols ERROR_VARIABLE json_error LENGTH "${out}" "${m}" 0)
      if(json_error OR NOT n EQUAL cols OR n EQUAL 0)
        message(FATAL_ERROR "JSON member '${m}' is not a non-empty square matrix\n${context}")
      endif()
    endif()
  endforeach()
endif()

if(DEFINED JSON_SHAPE)
  string(REPLACE "|" ";" shapes "${JSON_SHAPE}")
  foreach(shape IN LISTS shapes)
    if(NOT shape MATCHES "^([^=]+)=([0-9]+)x([0-9]+)$")
      message(FATAL_ERROR "run_cli.cmake: bad JSON_SHAPE entry '${shape}'")
    endif()
    set(m "${CMAKE_MATCH_1}")
    set(want_rows "${CMAKE_MATCH_2}")
    set(want_cols "${CMAKE_MATCH_3}")
    string(JSON rows ERROR_VARIABLE json_error LENGTH "${out}" "${m}")
    if(NOT json_error)
      string(JSON cols ERROR_VARIABLE json_error LENGTH "${out}" "${m}" 0)
    endif()
    if(json_error OR NOT rows EQUAL want_rows OR NOT cols EQUAL want_cols)
      message(FATAL_ERROR
              "JSON member '${m}' is not ${want_rows} x ${want_cols} (${rows} x ${cols})\n${context}")
    endif()
  endforeach()
endif()

if(DEFINED LINKS_OF)
  file(READ "${LINKS_OF}" urdf)
  string(REGEX MATCHALL "<link[ \t\r\n]+name=\"[^\"]+\"" links "${urdf}")
  list(LENGTH links count)
  if(count EQUAL 0)
    message(FATAL_ERROR "no <link name=...> found in ${LINKS_OF}")
  endif()
  foreach(l IN LISTS links)
    string(REGEX REPLACE ".*name=\"([^\"]+)\"" "\\1" name "${l}")
    string(FIND "${out}" "${name}" pos)
    if(pos EQUAL -1)
      message(FATAL_ERROR "link '${name}' of ${LINKS_OF} is not in the output\n${context}")
    endif()
  endforeach()
endif()
