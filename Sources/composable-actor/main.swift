import ComposableActor
import PrimesDefinition
import RandomTodoDefinition
import VotesDefinition
import WebSocketDefinition

ComposableActorCommand.main(stores: [
  PrimesStore.self, RandomTodoStore.self, VotesStore.self, WebSocketStore.self,
])
