#include "jouleprof/child_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace jouleprof {
namespace {

TEST(ChildProcess, ExitCodeIsReturned) {
  Result<ChildProcess> child = ChildProcess::spawn({"sh", "-c", "exit 7"});
  ASSERT_TRUE(child.ok()) << child.error().message();
  Result<ChildExit> exit = child->wait();
  ASSERT_TRUE(exit.ok());
  EXPECT_TRUE(exit->exited);
  EXPECT_EQ(exit->shell_code(), 7);
  EXPECT_EQ(exit->describe(), "exited with code 7");
}

TEST(ChildProcess, DeathBySignalIsReportedLikeAShell) {
  Result<ChildProcess> child = ChildProcess::spawn({"sh", "-c", "kill -SEGV $$"});
  ASSERT_TRUE(child.ok());
  Result<ChildExit> exit = child->wait();
  ASSERT_TRUE(exit.ok());
  EXPECT_FALSE(exit->exited);
  EXPECT_EQ(exit->signal, SIGSEGV);
  EXPECT_EQ(exit->shell_code(), 128 + SIGSEGV);
  EXPECT_NE(exit->describe().find("signal 11"), std::string::npos) << exit->describe();
}

// The child gets the variables given on top of this process's environment, a given name
// replacing the inherited value; this process's own environment does not change.
TEST(ChildProcess, TheChildGetsTheEnvironmentGivenWithoutThisProcessChanging) {
  ASSERT_EQ(setenv("JOULEPROF_TEST_INHERITED", "parent", 1), 0);
  ASSERT_EQ(setenv("JOULEPROF_TEST_REPLACED", "parent", 1), 0);
  Result<ChildProcess> child = ChildProcess::spawn(
      {"sh", "-c",
       "test \"$JOULEPROF_TEST_INHERITED\" = parent && test \"$JOULEPROF_TEST_REPLACED\" = child "
       "&& test \"$JOULEPROF_TEST_ADDED\" = added"},
      {{"JOULEPROF_TEST_REPLACED", "child"}, {"JOULEPROF_TEST_ADDED", "added"}});
  ASSERT_TRUE(child.ok()) << child.error().message();
  Result<ChildExit> exit = child->wait();
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(exit->shell_code(), 0) << "the child saw another environment";
  EXPECT_STREQ(std::getenv("JOULEPROF_TEST_REPLACED"), "parent");
  EXPECT_EQ(std::getenv("JOULEPROF_TEST_ADDED"), nullptr);
}

TEST(ChildProcess, UnknownCommandIsAnErrorNamingIt) {
  Result<ChildProcess> child = ChildProcess::spawn({"/nonexistent/jouleprof-test-command", "x"});
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(child.error().message().find("/nonexistent/jouleprof-test-command"), std::string::npos);
  EXPECT_FALSE(ChildProcess::spawn({}).ok());
}

TEST(ChildProcess, PollIsNonBlocking) {
  Result<ChildProcess> child = ChildProcess::spawn({"sleep", "5"});
  ASSERT_TRUE(child.ok());
  EXPECT_FALSE(child->poll().has_value());
  kill(child->pid(), SIGKILL);
  Result<ChildExit> exit = child->wait();
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(exit->signal, SIGKILL);
  EXPECT_TRUE(child->poll().has_value());
}

// A signal sent to this process with kill() reaches the child while a forwarder is installed.
TEST(SignalForwarder, ForwardsSignalsSentByOtherProcesses) {
  SignalForwarder forwarder;
  Result<ChildProcess> child = ChildProcess::spawn({"sleep", "30"});
  ASSERT_TRUE(child.ok());
  forwarder.forward_to(child->pid());
  kill(getpid(), SIGTERM);
  Result<ChildExit> exit = child->wait();
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(exit->signal, SIGTERM);
  EXPECT_EQ(forwarder.received(), SIGTERM);
}

// A signal that comes after the child started but before it was named to the forwarder (a
// `kill` right after the command began) still reaches it, once it is named.
TEST(SignalForwarder, ASignalBeforeTheChildWasNamedReachesItToo) {
  SignalForwarder forwarder;
  Result<ChildProcess> child = ChildProcess::spawn({"sleep", "30"});
  ASSERT_TRUE(child.ok());
  kill(getpid(), SIGTERM);
  EXPECT_EQ(forwarder.received(), SIGTERM);
  forwarder.forward_to(child->pid());
  Result<ChildExit> exit = child->wait();
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(exit->signal, SIGTERM);
}

TEST(SignalForwarder, CatchesEveryAsynchronousTerminatingSignal) {
  const std::vector<int> signals = forwarded_signals();
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU,
                  SIGXFSZ, SIGVTALRM, SIGPROF, SIGRTMIN, SIGRTMAX}) {
    EXPECT_NE(std::find(signals.begin(), signals.end(), sig), signals.end()) << strsignal(sig);
  }
  // Faults raised by jouleprof's own code must still end it.
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGKILL, SIGSTOP}) {
    EXPECT_EQ(std::find(signals.begin(), signals.end(), sig), signals.end()) << strsignal(sig);
  }
  // Each is recorded (and passed on) while a forwarder is installed.
  SignalForwarder forwarder;
  for (int sig : {SIGUSR1, SIGHUP, SIGRTMIN + 3}) {
    kill(getpid(), sig);
    EXPECT_EQ(forwarder.received(), sig);
  }
}

}  // namespace
}  // namespace jouleprof
