import ComposableActor
import TodoListStore

ComposableActorCommand.main(stores: [TodoListStore.self])
