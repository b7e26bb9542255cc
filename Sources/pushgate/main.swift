import App

PushgateCommand.main()
