"""repofix as a CI bot on pull requests: read the GitHub event, check who asked, run the agent on
the pull request's head (`ci run`, read-only token) and publish the validated result (`ci publish`,
write token): a commit on the branch, or a suggested patch for forks, plus one sticky comment."""
