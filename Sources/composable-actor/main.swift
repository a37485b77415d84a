import ComposableActor
import PrimesFeature
import RandomTodoFeature
import VotesFeature
import WebSocketFeature

ComposableActorCommand.main(stores: [
  PrimesStore.self, RandomTodoStore.self, VotesStore.self, WebSocketStore.self,
])
